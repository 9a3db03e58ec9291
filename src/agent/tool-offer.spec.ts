import type { FunctionTool } from '../shared/tool-types';
import { satisfiesToolChoice, selectToolOffer } from './tool-offer';

const schema = (name: string): FunctionTool => ({
  type: 'function',
  function: { name, parameters: { type: 'object' } },
});
const tools = [schema('search'), schema('fetch')];
const none = new Set<string>();

describe(selectToolOffer.name, () => {
  it('should offer nothing when the loop has no tools', () => {
    expect(selectToolOffer({ tools: [], disabled: none, toolChoice: 'required', forcing: true })).toEqual({});
  });

  it('should offer every enabled tool without a tool choice by default', () => {
    expect(selectToolOffer({ tools, disabled: none, toolChoice: undefined, forcing: true })).toEqual({ tools });
  });

  it('should leave disabled tools out', () => {
    const offer = selectToolOffer({ tools, disabled: new Set(['search']), toolChoice: 'auto', forcing: true });
    expect(offer).toEqual({ tools: [schema('fetch')], toolChoice: 'auto' });
  });

  it('should keep forcing a named tool while the force is pending', () => {
    const offer = selectToolOffer({ tools, disabled: none, toolChoice: { name: 'fetch' }, forcing: true });
    expect(offer.toolChoice).toEqual({ name: 'fetch' });
  });

  it('should stop forcing a named tool once it is disabled', () => {
    const offer = selectToolOffer({
      tools,
      disabled: new Set(['fetch']),
      toolChoice: { name: 'fetch' },
      forcing: true,
    });
    expect(offer).toEqual({ tools: [schema('search')], toolChoice: 'auto' });
  });

  it('should go back to auto once the forced choice was satisfied', () => {
    expect(selectToolOffer({ tools, disabled: none, toolChoice: 'required', forcing: false }).toolChoice).toBe('auto');
  });

  it('should send every definition with tool choice none when all tools are disabled', () => {
    const offer = selectToolOffer({ tools, disabled: new Set(['search', 'fetch']), toolChoice: 'auto', forcing: true });
    expect(offer).toEqual({ tools, toolChoice: 'none' });
  });
});

describe(satisfiesToolChoice.name, () => {
  it('should be satisfied by any call when a call is required', () => {
    expect(satisfiesToolChoice('required', 'search')).toBe(true);
  });

  it('should be satisfied only by the named tool', () => {
    expect(satisfiesToolChoice({ name: 'fetch' }, 'search')).toBe(false);
    expect(satisfiesToolChoice({ name: 'fetch' }, 'fetch')).toBe(true);
  });

  it('should not count as a force for auto', () => {
    expect(satisfiesToolChoice('auto', 'search')).toBe(false);
  });
});
