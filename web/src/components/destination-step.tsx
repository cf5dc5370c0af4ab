import { useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import type { OwnershipChallenge } from '../api/ownership-challenge.ts';
import { needsOwnership, type JobDraft } from '../model/job-draft.ts';
import type { WizardErrors } from '../model/wizard-step.ts';
import { FieldError } from './field-error.tsx';

/**
 * Step 4: where batches go (`destination_conf`) and, for files and S3 without keys, the ownership
 * challenge: the server writes a token into the destination and the user copies it back here.
 */
export function DestinationStep(props: {
  readonly api: ApiClient;
  readonly zoneId: string;
  readonly draft: JobDraft;
  /** The stored (masked) destination when editing: unchanged, it needs no new proof. */
  readonly storedDestination: string | undefined;
  readonly errors: WizardErrors;
  readonly change: (patch: Partial<JobDraft>) => void;
}) {
  const { draft, errors } = props;
  const [challenge, setChallenge] = useState<{ conf: string; filename: string } | undefined>(undefined);
  const [writeError, setWriteError] = useState<string | undefined>(undefined);
  const [testResult, setTestResult] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const conf = draft.destinationConf.trim();
  const unchanged = props.storedDestination !== undefined && draft.destinationConf === props.storedDestination;
  const proofNeeded = !unchanged && needsOwnership(conf);
  const isHttp = /^https?:\/\//.test(conf);

  const writeChallenge = async () => {
    setBusy(true);
    setWriteError(undefined);
    const answer = await props.api.send<OwnershipChallenge>('POST', `/zones/${props.zoneId}/logexport/ownership`, { destination_conf: conf });
    setBusy(false);
    if (answer.ok) setChallenge({ conf, filename: answer.result.filename });
    else setWriteError(messagesOf(answer.errors));
  };

  const testDestination = async () => {
    setBusy(true);
    setTestResult(undefined);
    const answer = await props.api.send<{ valid: boolean; message: string }>('POST', `/zones/${props.zoneId}/logexport/validate/destination`, { destination_conf: conf });
    setBusy(false);
    if (!answer.ok) setWriteError(messagesOf(answer.errors));
    else setTestResult(answer.result.valid ? 'The test upload succeeded.' : answer.result.message);
  };

  const destinationError = writeError ?? errors.destination;
  return (
    <>
      <div class="field">
        <label for="job-destination">Destination</label>
        <input
          id="job-destination"
          type="text"
          value={draft.destinationConf}
          spellcheck={false}
          autoComplete="off"
          aria-invalid={destinationError !== undefined}
          aria-describedby={destinationError !== undefined ? 'job-destination-error job-destination-hint' : 'job-destination-hint'}
          onInput={(e) => {
            props.change({ destinationConf: e.currentTarget.value, ownershipChallenge: '' });
            setChallenge(undefined);
            setWriteError(undefined);
            setTestResult(undefined);
          }}
        />
        <div id="job-destination-hint" class="hint">
          {unchanged ? (
            <p>This is the job’s current destination, with secrets shown as REDACTED. Leave it as it is to keep it.</p>
          ) : (
            <ul>
              <li>
                <code>file:///acme/logs/{'{DATE}'}</code> — files under the server’s export root
              </li>
              <li>
                <code>s3://bucket/path?region=us-east-1</code> — Amazon S3 or an S3-compatible service
              </li>
              <li>
                <code>r2://bucket/path?account-id=…&amp;access-key-id=…&amp;secret-access-key=…</code> — Cloudflare R2
              </li>
              <li>
                <code>https://logs.example.com/ingest?header_Authorization=Bearer%20…</code> — an HTTP endpoint
              </li>
            </ul>
          )}
        </div>
        <FieldError id="job-destination-error" message={destinationError} />
      </div>

      {proofNeeded && (
        <section class="card ownership" aria-labelledby="ownership-title">
          <h4 id="ownership-title">Prove that you own this destination</h4>
          <p>
            logexport writes a file holding a token into the destination. Open it and paste the token below; the server checks it when the job is
            saved.
          </p>
          <button type="button" disabled={busy || conf === ''} onClick={() => void writeChallenge()}>
            Write ownership challenge
          </button>
          {challenge !== undefined && challenge.conf === conf && (
            <p class="notice" role="status">
              The challenge file was written to <code id="challenge-filename">{challenge.filename}</code>
              {conf.startsWith('file://')
                ? ' under the server’s export root (LOGEXPORT_EXPORT_ROOT; by default exports/ in the data directory).'
                : ' in the bucket.'}{' '}
              Its content is the token.
            </p>
          )}
          <div class="field">
            <label for="job-ownership">Ownership token</label>
            <textarea
              id="job-ownership"
              rows={2}
              spellcheck={false}
              value={draft.ownershipChallenge}
              aria-invalid={errors.ownership !== undefined}
              aria-describedby={errors.ownership !== undefined ? 'job-ownership-error' : undefined}
              onInput={(e) => props.change({ ownershipChallenge: e.currentTarget.value })}
            />
            <FieldError id="job-ownership-error" message={errors.ownership} />
          </div>
        </section>
      )}

      {!unchanged && isHttp && (
        <div class="field">
          <button type="button" disabled={busy} onClick={() => void testDestination()}>
            Test destination
          </button>
          <p class="hint">HTTP destinations need no ownership proof; logexport sends a test upload when the job is saved. You can try one now.</p>
          {testResult !== undefined && (
            <p class="notice" role="status">
              {testResult}
            </p>
          )}
        </div>
      )}
    </>
  );
}
