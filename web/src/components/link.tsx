import type { ComponentChildren } from 'preact';
import { routePath, type Route } from '../model/route.ts';

/** A link to a dashboard screen that switches screens without reloading the page. */
export function Link(props: {
  readonly to: Route;
  readonly navigate: (route: Route) => void;
  readonly current?: boolean;
  readonly class?: string;
  readonly children: ComponentChildren;
}) {
  return (
    <a
      href={routePath(props.to)}
      class={props.class}
      aria-current={props.current === true ? 'page' : undefined}
      onClick={(event) => {
        // Let modified clicks (new tab, new window) do what the browser does.
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        props.navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}
