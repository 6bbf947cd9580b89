/**
 * Connection settings, following Temporal's conventions: TEMPORAL_ADDRESS (host:port),
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, and TEMPORAL_TLS / TEMPORAL_TLS_CLIENT_CERT_PATH /
 * TEMPORAL_TLS_CLIENT_KEY_PATH for mTLS.
 */
import * as fs from 'node:fs';

export interface EnvConnectionOptions {
  address: string;
  tls?: boolean | { clientCertPair: { crt: Buffer; key: Buffer } };
  apiKey?: string;
}

export function connectionOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EnvConnectionOptions {
  const address = env.TEMPORAL_ADDRESS ?? 'localhost:7233';
  const certPath = env.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const keyPath = env.TEMPORAL_TLS_CLIENT_KEY_PATH;
  const options: EnvConnectionOptions = { address };
  if (certPath && keyPath) {
    options.tls = { clientCertPair: { crt: fs.readFileSync(certPath), key: fs.readFileSync(keyPath) } };
  } else if (env.TEMPORAL_TLS === 'true' || env.TEMPORAL_API_KEY) {
    options.tls = true;
  }
  if (env.TEMPORAL_API_KEY) options.apiKey = env.TEMPORAL_API_KEY;
  return options;
}
