import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of the API process, served at /metrics. */
export function createApiMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const httpInFlight = new Gauge({
    name: 'http_requests_in_flight',
    help: 'Requests this process is working on, against its cap API_MAX_IN_FLIGHT (probes not counted)',
    registers: [registry],
  });
  const httpShed = new Counter({
    name: 'http_requests_shed_total',
    help: 'Requests answered 503 overloaded because the process had API_MAX_IN_FLIGHT in flight',
    registers: [registry],
  });
  return { registry, httpRequests, httpDuration, httpInFlight, httpShed };
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;
