import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import { isRecord } from '../shared/is-record';
import { BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION } from './bundle.dto';

export type BundleItems = ReadonlyArray<Record<string, unknown>>;

const MAX_ITEMS = 1000;

/** The lists of a bundle after its envelope is checked; each item is checked later by its own endpoint's rules. */
export function readBundle(raw: unknown): { tools: BundleItems; workflows: BundleItems } {
  if (!isRecord(raw)) {
    throw DomainError.validation([
      { field: 'body', message: 'must be a bundle object, as GET /api/v1/export returns' },
    ]);
  }
  const problems: FieldProblem[] = [];
  if (raw.format !== BUNDLE_FORMAT) problems.push({ field: 'format', message: `must be "${BUNDLE_FORMAT}"` });
  if (raw.format_version !== BUNDLE_FORMAT_VERSION) {
    problems.push({
      field: 'format_version',
      message: `${JSON.stringify(raw.format_version)} is not supported; this service reads version ${BUNDLE_FORMAT_VERSION}`,
    });
  }
  const list = (field: 'tools' | 'workflows'): BundleItems => {
    const value = raw[field] ?? [];
    if (!Array.isArray(value)) {
      problems.push({ field, message: 'must be an array' });
      return [];
    }
    if (value.length > MAX_ITEMS) problems.push({ field, message: `must have at most ${MAX_ITEMS} items` });
    value.forEach((item, index) => {
      if (!isRecord(item)) problems.push({ field: `${field}[${index}]`, message: 'must be an object' });
    });
    return value.filter(isRecord);
  };
  const lists = { tools: list('tools'), workflows: list('workflows') };
  if (problems.length > 0) throw DomainError.validation(problems, 'The bundle is invalid');
  return lists;
}
