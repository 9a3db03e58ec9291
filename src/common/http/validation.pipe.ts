import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import type { TransformerPackage } from '@nestjs/common/interfaces/external/transformer-package.interface';
import { instanceToPlain, plainToInstance } from 'class-transformer';
import { DomainError, type FieldProblem } from '../errors/domain-error';
import { isRecord } from '../../shared/is-record';

/** Keys that cannot become own properties of a DTO instance without changing what it is. */
const RESERVED_KEYS = ['__proto__', 'constructor', 'prototype'];

function flatten(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * class-transformer, then every key it did not copy put back as parsed: RawJson properties, and names like
 * `toString` it skips, which the whitelist then refuses instead of them vanishing.
 */
const keepingTransformer: TransformerPackage = {
  plainToInstance(type, plain, options) {
    const entity = plainToInstance(type, plain, options);
    if (isRecord(plain) && isRecord(entity) && !Array.isArray(plain)) {
      for (const key of Object.keys(plain)) {
        if (Object.hasOwn(entity, key)) continue;
        Object.defineProperty(entity, key, { value: plain[key], enumerable: true, writable: true, configurable: true });
      }
    }
    return entity;
  },
  classToPlain: (object, options) => instanceToPlain(object, options),
};

/** The body's keys class-transformer copies onto the DTO: all but its RawJson (free-form) properties. */
const typedKeys = (body: Record<string, unknown>, type: new () => unknown): string[] => {
  const keys = Object.keys(body);
  const probe = plainToInstance(type, Object.fromEntries(keys.map((key) => [key, 0])));
  return keys.filter((key) => isRecord(probe) && Object.hasOwn(probe, key));
};

/** The path below `value` of the first object that has an own `constructor` key; null when none has. Iterative. */
const constructorKeyPath = (value: unknown): string | null => {
  const stack: Array<{ node: unknown; path: string }> = [{ node: value, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && Object.hasOwn(node, 'constructor')) return `${path}.constructor`;
    for (const [key, child] of Object.entries(node)) {
      stack.push({ node: child, path: Array.isArray(node) ? `${path}[${key}]` : `${path}.${key}` });
    }
  }
  return null;
};

/**
 * Problems class-transformer and the validators would not report as field errors. A typed field holding an
 * object with a `constructor` key made class-transformer take that key for the class to build (`new
 * value.constructor()`: a TypeError, so a 500); it never wrote to Object.prototype, as it skips `constructor`
 * and `__proto__` when copying. And `@IsOptional()` lets `null` through, which services read as a value given
 * (`{"url": null}` was fetched): null is refused on typed fields. Free-form (RawJson) fields keep both as data.
 */
const typedFieldProblems = (body: Record<string, unknown>, type: new () => unknown): FieldProblem[] =>
  typedKeys(body, type).flatMap((key) => {
    const item = body[key];
    if (item === null) return [{ field: key, message: 'must not be null: leave the field out instead' }];
    const path = constructorKeyPath(item);
    return path === null ? [] : [{ field: `${key}${path}`, message: 'a key named constructor is not accepted here' }];
  });

/**
 * Nest's pipe deletes `__proto__`, `constructor` and `prototype` keys at every depth, so a tool parameter with
 * one of those names vanished without a word. JSON.parse makes them plain own data properties: inside free-form
 * JSON they are kept as data, and on the DTO itself they are refused like any unknown field.
 */
class KeepingValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.metatype && this.toValidate(metadata) && isRecord(value) && !Array.isArray(value)) {
      const reserved = RESERVED_KEYS.filter((key) => Object.hasOwn(value, key)).map((key) => ({
        field: key,
        message: `property ${key} should not exist`,
      }));
      const problems = reserved.length > 0 ? reserved : typedFieldProblems(value, metadata.metatype);
      if (problems.length > 0) throw DomainError.validation(problems);
    }
    return (await super.transform(value, metadata)) as unknown;
  }

  protected override stripProtoKeys(): void {}
}

/** Whitelisting validation whose errors name each field, raised as a DomainError so ProblemFilter renders them. */
export function createValidationPipe(): ValidationPipe {
  return new KeepingValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    transformerPackage: keepingTransformer,
    exceptionFactory: (errors) => DomainError.validation(flatten(errors)),
  });
}
