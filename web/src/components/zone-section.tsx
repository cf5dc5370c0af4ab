import type { ComponentChildren } from 'preact';
import type { Zone } from '../api/zone.ts';
import type { Route } from '../model/route.ts';
import { Link } from './link.tsx';

/** The Analytics & Logs section of one domain: its title and the Custom Fields / Log export jobs / Instant Logs tabs. */
export function ZoneSection(props: {
  readonly zone: Zone;
  readonly route: Exclude<Route, { kind: 'zones' }>;
  readonly navigate: (route: Route) => void;
  readonly children: ComponentChildren;
}) {
  const onJobs = props.route.kind === 'jobs' || props.route.kind === 'newJob' || props.route.kind === 'editJob';
  return (
    <>
      <div class="section-head">
        <p class="zone-name">{props.zone.name}</p>
        <h1>Analytics &amp; Logs</h1>
      </div>
      <nav class="tabs" aria-label="Analytics & Logs">
        <Link to={{ kind: 'customFields', zoneId: props.zone.id }} navigate={props.navigate} current={props.route.kind === 'customFields'}>
          Custom Fields
        </Link>
        <Link to={{ kind: 'jobs', zoneId: props.zone.id }} navigate={props.navigate} current={onJobs}>
          Log export jobs
        </Link>
        <Link to={{ kind: 'instantLogs', zoneId: props.zone.id }} navigate={props.navigate} current={props.route.kind === 'instantLogs'}>
          Instant Logs
        </Link>
      </nav>
      {props.children}
    </>
  );
}
