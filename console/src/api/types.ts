/** API shapes, from the client generated off the service's own OpenAPI document (npm run client:generate). */
export type * from './generated/types.gen';

export interface FieldProblem {
  field: string;
  message: string;
}

export interface Page<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
}
