import type { ComponentChildren } from 'preact';
import type { Zone } from '../api/zone.ts';
import type { Route } from '../model/route.ts';
import { Link } from './link.tsx';

/** One tab of a domain's section: its label, its screen, and every screen it is the current tab of. */
interface ZoneTab {
  readonly label: string;
  readonly route: (zoneId: string) => Route;
  readonly current: readonly Route['kind'][];
}

/** The tabs in order; a new screen of the section is one more entry. */
const zoneTabs: readonly ZoneTab[] = [
  { label: 'Custom Fields', route: (zoneId) => ({ kind: 'customFields', zoneId }), current: ['customFields'] },
  { label: 'Log export jobs', route: (zoneId) => ({ kind: 'jobs', zoneId }), current: ['jobs', 'newJob', 'editJob'] },
  { label: 'Instant Logs', route: (zoneId) => ({ kind: 'instantLogs', zoneId }), current: ['instantLogs'] },
  { label: 'Analytics', route: (zoneId) => ({ kind: 'analytics', zoneId }), current: ['analytics'] },
  { label: 'Log Explorer', route: (zoneId) => ({ kind: 'logExplorer', zoneId }), current: ['logExplorer'] },
  { label: 'Sources', route: (zoneId) => ({ kind: 'sources', zoneId }), current: ['sources'] },
];

/** The Analytics & Logs section of one domain: its title and its tabs (`zoneTabs`). */
export function ZoneSection(props: {
  readonly zone: Zone;
  readonly route: Exclude<Route, { kind: 'zones' }>;
  readonly navigate: (route: Route) => void;
  readonly children: ComponentChildren;
}) {
  return (
    <>
      <div class="section-head">
        <p class="zone-name">{props.zone.name}</p>
        <h1>Analytics &amp; Logs</h1>
      </div>
      <nav class="tabs" aria-label="Analytics & Logs">
        {zoneTabs.map((tab) => (
          <Link key={tab.label} to={tab.route(props.zone.id)} navigate={props.navigate} current={tab.current.includes(props.route.kind)}>
            {tab.label}
          </Link>
        ))}
      </nav>
      {props.children}
    </>
  );
}
