/**
 * The patch that turns the OpenTelemetry workflow interceptors on (workflows/interceptors.ts): runs that began with its
 * marker are traced, runs recorded before it replay as they ran. Never rename it; a later change to the interceptors
 * gets a new patch id.
 */
export const TRACING_PATCH = 'opentelemetry-tracing-v1';
