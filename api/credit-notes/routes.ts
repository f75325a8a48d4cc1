import type { RouteDef } from '../http/route';

// Being built (issue 15).
export const creditNoteRoutes: RouteDef[] = [];
