// Typed ids made inside workflows, where randomness must come from the workflow's seeded uuid4().
export function typedIdFromUuid(prefix: string, region: string, uuid: string): string {
  return `${prefix}_${region}_${uuid.replace(/-/g, '')}`;
}
