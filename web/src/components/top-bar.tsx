import type { Zone } from '../api/zone.ts';
import type { Route } from '../model/route.ts';
import { Link } from './link.tsx';

/** The account's screens linked from the bar, in order; a new one is one more entry. */
const accountLinks: readonly { readonly label: string; readonly route: Route }[] = [
  { label: 'Audit log', route: { kind: 'auditLog' } },
  { label: 'API tokens', route: { kind: 'apiTokens' } },
];

/**
 * The bar above every signed-in screen: the product, the domain switcher, the account's screens, the user
 * and Sign out. On a narrow screen its items wrap onto more rows of the bar instead of running past it.
 */
export function TopBar(props: {
  readonly email: string;
  readonly zones: readonly Zone[] | undefined;
  readonly zone: Zone | undefined;
  readonly route: Route;
  readonly navigate: (route: Route) => void;
  readonly onSignOut: () => void;
}) {
  return (
    <header class="top-bar">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Link to={{ kind: 'zones' }} navigate={props.navigate} class="brand">
        logexport
      </Link>
      {props.zones !== undefined && props.zones.length > 0 && (
        <div class="zone-switch">
          <label for="zone-switch">Domain</label>
          <select
            id="zone-switch"
            value={props.zone?.id ?? ''}
            onChange={(e) => {
              const id = e.currentTarget.value;
              props.navigate(id === '' ? { kind: 'zones' } : { kind: 'customFields', zoneId: id });
            }}
          >
            <option value="">All domains</option>
            {props.zones.map((z) => (
              <option key={z.id} value={z.id}>
                {z.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <nav class="account-links" aria-label="Account">
        {accountLinks.map((link) => (
          <Link key={link.label} to={link.route} navigate={props.navigate} current={props.route.kind === link.route.kind}>
            {link.label}
          </Link>
        ))}
      </nav>
      <span class="user" title="Signed in as">
        {props.email}
      </span>
      <button type="button" onClick={props.onSignOut}>
        Sign out
      </button>
    </header>
  );
}
