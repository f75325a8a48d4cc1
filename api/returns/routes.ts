import type { RouteDef } from '../http/route';

// Returns.
export const returnRoutes: RouteDef[] = [];
