import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../errors/domain-error';
import { MAX_JSON_DEPTH } from '../../shared/json-depth';

/** Deepest nesting of objects and arrays a request body may have (the body itself is level 1): the one JSON limit. */
export const MAX_BODY_DEPTH = MAX_JSON_DEPTH;

/** Whether `value` nests objects/arrays deeper than `max` levels; iterative, so any depth is safe to measure. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}

/**
 * Express middleware after the JSON parser: refuses bodies nested deeper than MAX_BODY_DEPTH before
 * anything recursive (class-transformer, validators, schema walks) can overflow the stack on them.
 */
export function limitBodyDepth(request: Request, _response: Response, next: NextFunction): void {
  if (nestedDeeperThan(request.body, MAX_BODY_DEPTH)) {
    const message = `the body is nested deeper than ${MAX_BODY_DEPTH} levels`;
    next(
      DomainError.validation(
        [{ field: 'body', message }],
        `Request body exceeds the nesting limit of ${MAX_BODY_DEPTH} levels`,
      ),
    );
    return;
  }
  next();
}
