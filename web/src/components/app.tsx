import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { callApi, createApiClient, messagesOf, type ApiClient } from '../api/api-client.ts';
import type { Session } from '../api/session.ts';
import type { Zone } from '../api/zone.ts';
import { explorerExamples } from '../model/explorer-examples.ts';
import { parseRoute, routePath, type Route } from '../model/route.ts';
import { AnalyticsPage } from './analytics-page.tsx';
import { AuditLogPage } from './audit-log-page.tsx';
import { ApiTokensPage } from './api-tokens-page.tsx';
import { CustomFieldsPage } from './custom-fields-page.tsx';
import { JobWizard } from './job-wizard.tsx';
import { InstantLogsPage } from './instant-logs-page.tsx';
import { JobsPage } from './jobs-page.tsx';
import { LogExplorerPage, type ExplorerDraft } from './log-explorer-page.tsx';
import { SignInForm } from './sign-in-form.tsx';
import { SourcesPage } from './sources-page.tsx';
import { TopBar } from './top-bar.tsx';
import { ZonePicker } from './zone-picker.tsx';
import { ZoneSection } from './zone-section.tsx';

type SessionState =
  | { readonly kind: 'checking' }
  | { readonly kind: 'signedOut'; readonly notice: string | undefined }
  | { readonly kind: 'signedIn'; readonly session: Session };

/** The dashboard: sign-in, then the zone list and each zone's Analytics & Logs screens. */
export function App() {
  const [state, setState] = useState<SessionState>({ kind: 'checking' });
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.pathname));
  const [zones, setZones] = useState<readonly Zone[] | undefined>(undefined);
  const [zonesError, setZonesError] = useState<string | undefined>(undefined);
  // Log Explorer's text, per domain, kept while the user moves between tabs.
  const [explorerDrafts, setExplorerDrafts] = useState<Readonly<Record<string, ExplorerDraft>>>({});

  const navigate = useCallback((next: Route) => {
    window.history.pushState(null, '', routePath(next));
    setRoute(next);
    window.scrollTo(0, 0);
  }, []);

  useEffect(() => {
    const onPop = () => setRoute(parseRoute(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  useEffect(() => {
    void callApi<Session>('GET', '/session').then((answer) => {
      setState(answer.ok ? { kind: 'signedIn', session: answer.result } : { kind: 'signedOut', notice: undefined });
    });
  }, []);

  const signedIn = state.kind === 'signedIn' ? state.session : undefined;
  const api: ApiClient | undefined = useMemo(
    () =>
      signedIn === undefined
        ? undefined
        : createApiClient(signedIn.csrf_token, () => setState({ kind: 'signedOut', notice: 'Your session has ended. Sign in again to continue.' })),
    [signedIn],
  );

  useEffect(() => {
    if (api === undefined) return;
    setZones(undefined);
    setZonesError(undefined);
    void api.get<Zone[]>('/zones?per_page=1000').then((answer) => {
      if (answer.ok) setZones(answer.result);
      else setZonesError(messagesOf(answer.errors));
    });
  }, [api]);

  const signOut = async () => {
    await callApi('DELETE', '/session', { csrfToken: signedIn?.csrf_token });
    setZones(undefined);
    setState({ kind: 'signedOut', notice: 'You have signed out.' });
  };

  // Screens below are keyed by zone, so switching domains starts each one afresh.
  const zone = route.kind === 'zones' || route.kind === 'auditLog' || route.kind === 'apiTokens' ? undefined : zones?.find((z) => z.id === route.zoneId);

  useEffect(() => {
    const screen: Readonly<Record<Route['kind'], string>> = {
      zones: 'Domains',
      auditLog: 'Audit log',
      apiTokens: 'API tokens',
      customFields: 'Custom Fields',
      jobs: 'Log export jobs',
      instantLogs: 'Instant Logs',
      sources: 'Sources',
      logExplorer: 'Log Explorer',
      analytics: 'Analytics',
      newJob: 'Add job',
      editJob: 'Edit job',
    };
    const parts = state.kind === 'signedIn' ? [screen[route.kind], zone?.name] : ['Sign in'];
    document.title = [...parts.filter((p) => p !== undefined), 'logexport'].join(' · ');
  }, [state.kind, route.kind, zone?.name]);

  if (state.kind === 'checking') return <p class="loading">Loading…</p>;
  if (state.kind === 'signedOut' || api === undefined) {
    return (
      <SignInForm
        notice={state.kind === 'signedOut' ? state.notice : undefined}
        onSignedIn={(session) => setState({ kind: 'signedIn', session })}
      />
    );
  }

  return (
    <>
      <TopBar email={state.session.email} zones={zones} zone={zone} route={route} navigate={navigate} onSignOut={signOut} />
      <main id="main">
        {zonesError !== undefined && (
          <p class="error-banner" role="alert">
            The domains could not be loaded: {zonesError}
          </p>
        )}
        {zones === undefined && zonesError === undefined && <p class="loading">Loading domains…</p>}
        {zones !== undefined && route.kind === 'zones' && <ZonePicker zones={zones} navigate={navigate} />}
        {zones !== undefined && route.kind === 'auditLog' && <AuditLogPage api={api} zones={zones} />}
        {zones !== undefined && route.kind === 'apiTokens' && <ApiTokensPage api={api} zones={zones} />}
        {zones !== undefined && route.kind !== 'zones' && route.kind !== 'auditLog' && route.kind !== 'apiTokens' && zone === undefined && (
          <p class="error-banner" role="alert">
            This domain is not one of yours, or it no longer exists. Choose one from the list of domains.
          </p>
        )}
        {zone !== undefined && route.kind !== 'zones' && route.kind !== 'auditLog' && route.kind !== 'apiTokens' && (
          <ZoneSection zone={zone} route={route} navigate={navigate}>
            {route.kind === 'customFields' && <CustomFieldsPage key={zone.id} api={api} zone={zone} />}
            {route.kind === 'jobs' && <JobsPage key={zone.id} api={api} zone={zone} navigate={navigate} />}
            {route.kind === 'instantLogs' && <InstantLogsPage key={zone.id} api={api} zone={zone} />}
            {route.kind === 'sources' && <SourcesPage key={zone.id} api={api} zone={zone} />}
            {route.kind === 'logExplorer' && (
              <LogExplorerPage
                key={zone.id}
                api={api}
                zone={zone}
                draft={explorerDrafts[zone.id] ?? { sql: explorerExamples[0]?.sql ?? '', runOnOpen: false }}
                setDraft={(draft) => setExplorerDrafts((drafts) => ({ ...drafts, [zone.id]: draft }))}
              />
            )}
            {route.kind === 'analytics' && (
              <AnalyticsPage
                key={zone.id}
                api={api}
                zone={zone}
                openInExplorer={(sql) => {
                  setExplorerDrafts((drafts) => ({ ...drafts, [zone.id]: { sql, runOnOpen: true } }));
                  navigate({ kind: 'logExplorer', zoneId: zone.id });
                }}
              />
            )}
            {route.kind === 'newJob' && <JobWizard key={`new-${zone.id}`} api={api} zone={zone} jobId={undefined} navigate={navigate} />}
            {route.kind === 'editJob' && <JobWizard key={`edit-${zone.id}-${route.jobId}`} api={api} zone={zone} jobId={route.jobId} navigate={navigate} />}
          </ZoneSection>
        )}
      </main>
    </>
  );
}
