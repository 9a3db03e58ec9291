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

/**
 * Nest's pipe deletes `__proto__`, `constructor` and `prototype` keys at every depth, so a tool parameter with
 * one of those names vanished without a word. JSON.parse makes them plain own data properties: inside free-form
 * JSON they are kept as data, and on the DTO itself they are refused like any unknown field.
 */
class KeepingValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.metatype && this.toValidate(metadata) && isRecord(value)) {
      const problems = RESERVED_KEYS.filter((key) => Object.hasOwn(value, key)).map((key) => ({
        field: key,
        message: `property ${key} should not exist`,
      }));
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
