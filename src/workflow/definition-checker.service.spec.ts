import { Test } from '@nestjs/testing';
import { userPrincipal } from '../../test/factories/run.factory';
import { loadConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ProviderRegistry } from '../llm/provider-registry';
import { RegistryService } from '../registry/registry.service';
import { analyzeDefinition } from './validate-definition';
import { DefinitionChecker } from './definition-checker.service';

jest.mock('./validate-definition', () => {
  const actual = jest.requireActual<typeof import('./validate-definition')>('./validate-definition');
  return { ...actual, analyzeDefinition: jest.fn(actual.analyzeDefinition) };
});

const definition = () => ({
  name: 'greeting',
  inputs: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'end', type: 'end', data: { outputs: { city: '{{inputs.city}}' } } },
  ],
  edges: [{ source: 'start', target: 'end' }],
});

describe(DefinitionChecker.name, () => {
  let sut: DefinitionChecker;

  beforeEach(async () => {
    jest.mocked(analyzeDefinition).mockClear();
    const moduleRef = await Test.createTestingModule({
      providers: [
        DefinitionChecker,
        { provide: RegistryService, useValue: {} },
        { provide: ProviderRegistry, useValue: { has: (name: string) => name === 'openai', names: ['openai'] } },
        { provide: APP_CONFIG, useValue: loadConfig({}) },
      ],
    }).compile();
    sut = moduleRef.get(DefinitionChecker);
  });

  it('should analyse a stored definition once per version, not on every run', async () => {
    for (let run = 0; run < 3; run++)
      await sut.check(definition(), userPrincipal(), 'definition', { version: 'wf-1@1' });
    await sut.check(definition(), userPrincipal(), 'definition', { version: 'wf-1@2' });

    expect(analyzeDefinition).toHaveBeenCalledTimes(2);
  });

  it('should analyse an inline definition every time', async () => {
    for (let run = 0; run < 2; run++) await sut.check(definition(), userPrincipal());

    expect(analyzeDefinition).toHaveBeenCalledTimes(2);
  });

  it('should refuse a provider this service lacks, or only warn of it for an import', async () => {
    const elsewhere = {
      ...definition(),
      nodes: [
        { id: 'start', type: 'start', data: {} },
        { id: 'llm-1', type: 'llm', data: { prompt: 'Hi', provider: 'azure-prod' } },
        { id: 'end', type: 'end', data: { outputs: { city: '{{inputs.city}}' } } },
      ],
      edges: [
        { source: 'start', target: 'llm-1' },
        { source: 'llm-1', target: 'end' },
      ],
    };
    const problem = 'definition.nodes[1](llm-1).data.provider: unknown provider "azure-prod"; configured: openai';

    await expect(sut.check(elsewhere, userPrincipal())).rejects.toMatchObject({
      problems: [{ field: 'definition.nodes[1](llm-1).data.provider' }],
    });
    const { warnings = [] } = await sut.check(elsewhere, userPrincipal(), 'definition', { unconfigured: 'warn' });
    expect(warnings.map((warning) => `${warning.field}: ${warning.message}`)).toEqual([
      `${problem}; its runs are refused here until this is configured`,
    ]);
    expect(() => sut.executionPlan(elsewhere)).toThrow(problem.replace(/^definition\./, ''));
  });

  it('should validate run inputs with the cached validator of the version', () => {
    const checked = definition() as never;

    expect(sut.checkInputs(checked, { city: 'Paris' }, 'wf-1@1')).toEqual({ city: 'Paris' });
    expect(() => sut.checkInputs(checked, {}, 'wf-1@1')).toThrow('do not match');
  });
});
