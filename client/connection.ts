/**
 * Connection settings, following Temporal's environment configuration (@temporalio/envconfig),
 * the same rules as the `temporal` CLI and the other SDKs:
 *  1. a profile from the TOML config file: TEMPORAL_CONFIG_FILE, else the platform default
 *     (~/.config/temporalio/temporal.toml on Linux). A missing file is fine. The profile is
 *     TEMPORAL_PROFILE, else "default" (an explicitly named profile that is absent is an error);
 *  2. explicit environment variables override the profile field by field: TEMPORAL_ADDRESS,
 *     TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS (true/1 or false/0),
 *     TEMPORAL_TLS_CLIENT_CERT_PATH / _KEY_PATH (or _DATA), TEMPORAL_TLS_SERVER_CA_CERT_PATH (or
 *     _DATA), TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_<HEADER>;
 *  3. defaults: localhost:7233, namespace "default"; an API key implies TLS unless TLS is
 *     configured explicitly.
 * Empty variables count as unset (so `TEMPORAL_TLS=` does not switch TLS off).
 */
import type { TLSConfig } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { errorMessage } from '../shared/util/errors';

export const DEFAULT_ADDRESS = 'localhost:7233';
export const DEFAULT_NAMESPACE = 'default';

export interface EnvConnectionOptions {
  address: string;
  namespace: string;
  tls?: boolean | TLSConfig;
  apiKey?: string;
  /** gRPC headers from the profile's grpc_meta and TEMPORAL_GRPC_META_* variables. */
  metadata?: Record<string, string>;
}

/** The client configuration could not be loaded (unknown profile, unreadable or malformed file). */
export class TemporalConfigError extends Error {
  override name = 'TemporalConfigError';
}

export function connectionOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EnvConnectionOptions {
  const vars: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    // An empty TEMPORAL_GRPC_META_* removes a header (envconfig's rule); other empty variables are unset.
    if (value === '' && !key.startsWith('TEMPORAL_GRPC_META_')) continue;
    vars[key] = value;
  }
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: vars });
  } catch (error) {
    const file = vars.TEMPORAL_CONFIG_FILE ?? 'the default config file (~/.config/temporalio/temporal.toml)';
    const reason = errorMessage(error);
    if (vars.TEMPORAL_PROFILE && /not found/i.test(reason)) {
      throw new TemporalConfigError(
        `Temporal profile "${vars.TEMPORAL_PROFILE}" (TEMPORAL_PROFILE) is not in ${file}; ` +
          `add a [profile.${vars.TEMPORAL_PROFILE}] table or unset TEMPORAL_PROFILE`,
      );
    }
    throw new TemporalConfigError(
      `cannot load Temporal client configuration from ${file} (${reason}); ` +
        `fix the file, point TEMPORAL_CONFIG_FILE elsewhere, or use TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE`,
    );
  }
  const { connectionOptions: connection } = loaded;
  const options: EnvConnectionOptions = {
    address: connection.address || DEFAULT_ADDRESS,
    namespace: loaded.namespace || DEFAULT_NAMESPACE,
  };
  const tls = simplifyTls(connection.tls);
  if (tls !== undefined) options.tls = tls;
  if (typeof connection.apiKey === 'string' && connection.apiKey) options.apiKey = connection.apiKey;
  const metadata = Object.entries(connection.metadata ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  if (metadata.length > 0) options.metadata = Object.fromEntries(metadata);
  return options;
}

/** Drops unset fields; a TLS config with nothing in it is plain `true` (system roots). */
function simplifyTls(tls: boolean | TLSConfig | null | undefined): boolean | TLSConfig | undefined {
  if (tls === null || tls === undefined || typeof tls === 'boolean') return tls ?? undefined;
  const config: TLSConfig = {};
  if (tls.serverNameOverride) config.serverNameOverride = tls.serverNameOverride;
  if (tls.serverRootCACertificate) config.serverRootCACertificate = tls.serverRootCACertificate;
  if (tls.clientCertPair) config.clientCertPair = tls.clientCertPair;
  return Object.keys(config).length === 0 ? true : config;
}
