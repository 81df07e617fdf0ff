/**
 * Prisma's contains/startsWith become LIKE/ILIKE without escaping, so a "%" or "_" typed into a
 * filter would act as a wildcard. PostgreSQL's default LIKE escape is the backslash.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
