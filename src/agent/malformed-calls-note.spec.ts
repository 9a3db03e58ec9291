import { malformedCallsNote } from './malformed-calls-note';

describe(malformedCallsNote.name, () => {
  it('should give each call its id, reason and arguments', () => {
    const sut = malformedCallsNote([
      { id: 'c1', arguments: '{"q":1}', reason: 'the call has no tool name' },
      { id: '', arguments: 'oops', reason: 'unreadable' },
    ]);
    expect(sut).toContain('(id c1) could not be executed: the call has no tool name. Arguments received: {"q":1}');
    expect(sut).toContain('- tool call could not be executed: unreadable. Arguments received: oops');
  });
});
