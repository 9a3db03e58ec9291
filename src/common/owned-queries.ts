import { Brackets, QueryFailedError, type ObjectLiteral, type Repository, type SelectQueryBuilder } from 'typeorm';
import { isAdmin, type Principal } from './auth/principal';
import { DomainError } from './errors/domain-error';

/** Lookups by `:id` accept the id or a name (unique per owner); a UUID is taken as an id. */
export const byIdOrName = (idOrName: string): { id: string } | { name: string } =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrName)
    ? { id: idOrName }
    : { name: idOrName };

/** A unique index refused the row (MySQL/MariaDB or SQLite). */
export const isDuplicateKey = (error: unknown): boolean =>
  error instanceof QueryFailedError &&
  ['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE'].includes((error.driverError as { code?: string }).code ?? '');

export interface OwnedRow {
  name: string;
  isPublic: boolean;
  userId: string | null;
}

/** Names an import may clash with: the caller's own rows and the public ones, each name to its row's id. */
export interface TakenNames {
  readonly own: ReadonlyMap<string, string>;
  readonly public: ReadonlyMap<string, string>;
}

/** The names a principal's import into `repository` (tools, workflows) may clash with, in one query. */
export async function namesTaken(
  repository: Repository<OwnedRow & { id: string }>,
  principal: Principal,
): Promise<TakenNames> {
  const rows = await repository.find({
    select: { id: true, name: true, userId: true, isPublic: true },
    where: [{ userId: principal.userId }, { isPublic: true }],
  });
  return {
    own: new Map(rows.filter((row) => row.userId === principal.userId).map((row) => [row.name, row.id])),
    public: new Map(rows.filter((row) => row.isPublic).map((row) => [row.name, row.id])),
  };
}

/** The same rule as whereVisibleTo, for a row already loaded. */
export const isVisibleTo = (row: OwnedRow, principal: Principal): boolean =>
  isAdmin(principal) || row.isPublic || row.userId === principal.userId;

/**
 * What a name means to a principal when several rows share it (names are unique per owner, public names among
 * public rows): its own row, else the public one, else (admins, who see everything) the first other one.
 */
export function pickByName<T extends OwnedRow>(rows: readonly T[], principal: Principal): T | undefined {
  const visible = rows.filter((row) => isVisibleTo(row, principal));
  return visible.find((row) => row.userId === principal.userId) ?? visible.find((row) => row.isPublic) ?? visible[0];
}

/** Only the owner or an admin changes or deletes a row. */
export function assertCanChange(row: OwnedRow, principal: Principal, what: string): void {
  if (!isAdmin(principal) && row.userId !== principal.userId) {
    throw DomainError.forbidden(`Only the owner or an admin may change ${what} "${row.name}"`);
  }
}

/** Rows a principal may see: admins all, others the public ones and their own (`isPublic`, `userId` columns). */
export function whereVisibleTo<T extends ObjectLiteral>(builder: SelectQueryBuilder<T>, principal: Principal): void {
  if (isAdmin(principal)) return;
  const alias = builder.alias;
  // Bound as 1, not true: better-sqlite3 cannot bind JS booleans.
  builder.andWhere(
    new Brackets((visible) =>
      visible.where(`${alias}.isPublic = 1`).orWhere(`${alias}.userId = :visibleTo`, { visibleTo: principal.userId }),
    ),
  );
}

/**
 * Case-insensitive literal search in name and description. `%` and `_` in the text are matched as
 * themselves; the escape is `!`, which behaves alike on MySQL and SQLite (a backslash does not).
 */
export function whereNameOrDescriptionContains<T extends ObjectLiteral>(
  builder: SelectQueryBuilder<T>,
  text: string | undefined,
): void {
  if (!text) return;
  const alias = builder.alias;
  const pattern = `%${text.toLowerCase().replace(/[!%_]/g, (char) => `!${char}`)}%`;
  builder.andWhere(
    new Brackets((search) =>
      search
        .where(`LOWER(${alias}.name) LIKE :pattern ESCAPE '!'`, { pattern })
        .orWhere(`LOWER(${alias}.description) LIKE :pattern ESCAPE '!'`, { pattern }),
    ),
  );
}
