import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { DomainError, type FieldProblem } from '../errors/domain-error';

function flatten(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** Whitelisting validation whose errors name each field, raised as a DomainError so ProblemFilter renders them. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => DomainError.validation(flatten(errors)),
  });
}
