import { z } from 'zod';
import { route, type RouteDef } from '../http/route';

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

const readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({ mongodb: z.boolean(), temporal: z.boolean(), worker: z.boolean() }),
});

export const healthRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/healthz',
    versions: 'unversioned',
    auth: 'none',
    summary: 'Liveness: the process is up',
    tags: ['Operations'],
    responses: { 200: { description: 'Alive', schema: z.object({ status: z.literal('ok') }) } },
    handler: async () => ({ status: 200, body: { status: 'ok' } }),
  }),
  route({
    method: 'get',
    path: '/readyz',
    versions: 'unversioned',
    auth: 'none',
    summary: 'Readiness: MongoDB, Temporal and a polling worker are reachable',
    tags: ['Operations'],
    responses: {
      200: { description: 'Ready', schema: readiness },
      503: { description: 'A dependency is not reachable', schema: readiness },
    },
    handler: async ({ deps }) => {
      const check = async (fn: () => Promise<unknown>) => {
        try {
          return Boolean(await withTimeout(fn(), 2000));
        } catch {
          return false;
        }
      };
      const [mongodb, temporal, worker] = await Promise.all([
        check(() => deps.mongo.db.command({ ping: 1 })),
        check(() => deps.temporal.connection.workflowService.getSystemInfo({})),
        check(() => deps.workerPolling()),
      ]);
      const ok = mongodb && temporal && worker;
      return { status: ok ? 200 : 503, body: { status: ok ? 'ready' : 'not_ready', checks: { mongodb, temporal, worker } } };
    },
  }),
  route({
    method: 'get',
    path: '/metrics',
    versions: 'unversioned',
    auth: 'none',
    summary: 'Prometheus metrics of this API process',
    tags: ['Operations'],
    responses: { 200: { description: 'Prometheus text format' } },
    handler: async ({ deps }) => ({
      status: 200,
      body: await deps.metrics.registry.metrics(),
      headers: { 'Content-Type': deps.metrics.registry.contentType },
    }),
  }),
];
