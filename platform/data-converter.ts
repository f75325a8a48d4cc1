import type { DataConverter } from '@temporalio/common';
import type { Config } from './config';
import { parseCodecKeys, TenantPayloadCodec } from './payload-codec';

/**
 * What every Temporal client and worker of the service passes as `dataConverter`: the payload codec when
 * PAYLOAD_CODEC is on, nothing (the SDK's default) when it is off. Processes that read each other's payloads
 * must agree, so the API, the workers and the scripts that talk to Temporal all take it from here.
 */
export function dataConverterFor(config: Pick<Config, 'PAYLOAD_CODEC' | 'PAYLOAD_CODEC_KEYS'>): DataConverter | undefined {
  if (config.PAYLOAD_CODEC === 'off') return undefined;
  return { payloadCodecs: [new TenantPayloadCodec(parseCodecKeys(config.PAYLOAD_CODEC_KEYS ?? ''))] };
}
