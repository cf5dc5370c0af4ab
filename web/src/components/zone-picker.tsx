import type { Zone } from '../api/zone.ts';
import type { Route } from '../model/route.ts';
import { Link } from './link.tsx';

/** The list of the user's domains (zones) to choose from. */
export function ZonePicker(props: { readonly zones: readonly Zone[]; readonly navigate: (route: Route) => void }) {
  return (
    <section aria-labelledby="zones-title">
      <h1 id="zones-title">Choose a domain</h1>
      {props.zones.length === 0 ? (
        <p>
          You have no domains yet. Create one on the server with <code>npx logexport zones create --email you@example.com --name example.com</code>,
          or through <code>POST /client/v4/zones</code>, then reload this page.
        </p>
      ) : (
        <ul class="zone-list">
          {props.zones.map((zone) => (
            <li key={zone.id}>
              <Link to={{ kind: 'customFields', zoneId: zone.id }} navigate={props.navigate}>
                {zone.name}
              </Link>
              <span class="muted"> · zone id <code>{zone.id}</code></span>
              {zone.status === 'pending' && zone.verification !== undefined && (
                <span class="muted">
                  {' '}
                  · <strong>pending</strong>: receives no events routed by host until a {zone.verification.type} record <code>{zone.verification.name}</code> holds{' '}
                  <code>{zone.verification.value}</code> (then <code>PUT /client/v4/zones/{zone.id}/activation_check</code>)
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
