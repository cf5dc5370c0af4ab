/** A destination_conf with its secret parts (what the API masks) sealed for the store, and opened again. */
import { mapSecretValues } from '../domain/jobs/destination-conf.ts';
import { SecretBox } from './secret-box.ts';

export function sealDestinationConf(conf: string, box: SecretBox): string {
  return mapSecretValues(conf, (value) => box.seal(value));
}

export function openDestinationConf(conf: string, box: SecretBox): string {
  return mapSecretValues(conf, (value) => box.open(value));
}

/** Whether every secret part of a stored destination_conf is sealed. */
export function isFullySealed(conf: string): boolean {
  let sealed = true;
  mapSecretValues(conf, (value) => {
    if (!SecretBox.isSealed(value)) sealed = false;
    return value;
  });
  return sealed;
}
