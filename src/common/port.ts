import type { FactoryProvider } from '@nestjs/common';

/**
 * A port: a lower module declares the interface and this slot (one per application, see `portProvider`); the module
 * above that implements it registers the implementation at init, `port.provide(this)` in its `onModuleInit`, the way
 * telemetry registers its observers. Nothing looks an implementation up at run time, and `requirePorts` in the
 * declaring module's `onApplicationBootstrap` fails the start when a port has none.
 */
export class Port<T> {
  private implementation: T | undefined;

  constructor(readonly name: string) {}

  /** Registers the implementation; a second, different one is a wiring error. */
  provide(implementation: T): void {
    if (this.implementation !== undefined && this.implementation !== implementation) {
      throw new Error(`Port ${this.name} already has an implementation`);
    }
    this.implementation = implementation;
  }

  get provided(): boolean {
    return this.implementation !== undefined;
  }

  /** The implementation; throws naming the port when no module registered one. */
  get(): T {
    if (this.implementation === undefined) throw new MissingPortError([this.name]);
    return this.implementation;
  }
}

export class MissingPortError extends Error {
  constructor(readonly ports: readonly string[]) {
    super(`No implementation registered for port ${ports.join(', ')}: the module that implements it is not imported`);
    this.name = 'MissingPortError';
  }
}

/** The provider of a port's slot under its token: the declaring module lists and exports it. */
export const portProvider = (token: symbol): FactoryProvider => ({
  provide: token,
  useFactory: () => new Port(token.description ?? 'unnamed'),
});

/** A port with its implementation already registered: for tests that build a module's services without the module above. */
export function providedPort<T>(token: symbol, implementation: T): Port<T> {
  const port = new Port<T>(token.description ?? 'unnamed');
  port.provide(implementation);
  return port;
}

/** Throws MissingPortError naming every port of `ports` that has no implementation. */
export function requirePorts(...ports: ReadonlyArray<Port<unknown>>): void {
  const missing = ports.filter((port) => !port.provided).map((port) => port.name);
  if (missing.length > 0) throw new MissingPortError(missing);
}
