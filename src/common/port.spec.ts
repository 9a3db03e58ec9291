import { MissingPortError, Port, portProvider, providedPort, requirePorts } from './port';

interface Greeter {
  greet(): string;
}
const GREETER = Symbol('GREETER');
const FAREWELL = Symbol('FAREWELL');

describe(Port.name, () => {
  it('should give the implementation registered at init', () => {
    const sut = new Port<Greeter>('GREETER');
    const greeter = { greet: () => 'hello' };

    sut.provide(greeter);

    expect(sut.get()).toBe(greeter);
    expect(sut.provided).toBe(true);
  });

  it('should throw naming the port when nothing registered an implementation', () => {
    const sut = new Port<Greeter>('GREETER');

    expect(() => sut.get()).toThrow(MissingPortError);
    expect(() => sut.get()).toThrow('No implementation registered for port GREETER');
  });

  it('should refuse a second, different implementation', () => {
    const sut = new Port<Greeter>('GREETER');
    const greeter = { greet: () => 'hello' };
    sut.provide(greeter);

    expect(() => sut.provide(greeter)).not.toThrow();
    expect(() => sut.provide({ greet: () => 'hi' })).toThrow('Port GREETER already has an implementation');
  });

  it('should make one empty port per application, named after its token', () => {
    const provider = portProvider(GREETER);
    const factory = provider.useFactory as () => Port<Greeter>;

    expect(provider.provide).toBe(GREETER);
    expect(factory()).not.toBe(factory());
    expect(factory().name).toBe('GREETER');
    expect(factory().provided).toBe(false);
  });
});

describe(requirePorts.name, () => {
  it('should name every port without an implementation', () => {
    const greeter = providedPort<Greeter>(GREETER, { greet: () => 'hello' });
    const farewell = new Port<Greeter>('FAREWELL');
    const other = new Port<Greeter>('OTHER');

    expect(() => requirePorts(greeter)).not.toThrow();
    expect(() => requirePorts(greeter, farewell, other)).toThrow(
      'No implementation registered for port FAREWELL, OTHER',
    );
    expect(FAREWELL.description).toBe('FAREWELL');
  });
});
