import { Exclude } from 'class-transformer';

/**
 * Marks a free-form JSON property (a schema, a config, arguments): class-transformer leaves it alone and the
 * validation pipe hands it on exactly as parsed. Copied by class-transformer, nested keys named `constructor`
 * make it fail and `__proto__` or any name of Object.prototype (`toString`, …) would silently vanish.
 */
export const RawJson = (): PropertyDecorator => Exclude({ toClassOnly: true });
