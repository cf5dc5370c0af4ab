/**
 * The store as the rest of logexport sees it when secrets are kept encrypted: every job written has the
 * secret parts of its destination_conf sealed (secret-box.ts), every job read has them opened, so the API,
 * the runners and the ownership checks work with the plain string and never see a sealed one. It sits
 * under the read cache: cachedStore(encryptedStore(store, box)).
 */
import type { JobSettings } from '../domain/jobs/job-settings.ts';
import type { Job, Store } from '../store/store.ts';
import { openDestinationConf, sealDestinationConf } from './sealed-destination-conf.ts';
import type { SecretBox } from './secret-box.ts';

/** Wraps `store` (the root store or a transaction's view) so job secrets are sealed in it. */
export function encryptedStore(store: Store, box: SecretBox): Store {
  const open = (job: Job): Job => ({ ...job, destinationConf: openDestinationConf(job.destinationConf, box) });
  const openMaybe = (job: Job | undefined) => (job === undefined ? undefined : open(job));
  const sealSettings = <T extends Partial<JobSettings>>(settings: T): T =>
    settings.destinationConf === undefined ? settings : { ...settings, destinationConf: sealDestinationConf(settings.destinationConf, box) };
  const overrides: Partial<Store> = {
    transaction: (work) => store.transaction((tx) => work(encryptedStore(tx, box))),
    listJobs: async (zoneId) => (await store.listJobs(zoneId)).map(open),
    getJob: async (zoneId, jobId) => openMaybe(await store.getJob(zoneId, jobId)),
    listEnabledJobs: async () => (await store.listEnabledJobs()).map(open),
    listAllJobs: async () => (await store.listAllJobs()).map(open),
    createJob: async (zoneId, settings, now, maxJobs) => openMaybe(await store.createJob(zoneId, sealSettings(settings), now, maxJobs)),
    updateJob: async (zoneId, jobId, changes, now) => openMaybe(await store.updateJob(zoneId, jobId, sealSettings(changes), now)),
    setJobDestinationConf: (jobId, conf) => store.setJobDestinationConf(jobId, sealDestinationConf(conf, box)),
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === 'string' && Object.hasOwn(overrides, property)) return overrides[property as keyof Store];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
