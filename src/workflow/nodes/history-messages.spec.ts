import { historyMessages } from './history-messages';

describe(historyMessages.name, () => {
  it('should keep user and assistant turns in order', () => {
    const turns = [
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: 'Oslo: 3 °C.' },
    ];

    expect(historyMessages(turns)).toEqual(turns);
  });

  it('should read nothing from an unset or empty value', () => {
    expect(historyMessages(undefined)).toEqual([]);
    expect(historyMessages(null)).toEqual([]);
    expect(historyMessages('')).toEqual([]);
  });

  it('should refuse system and tool turns, naming the entry', () => {
    expect(() =>
      historyMessages([
        { role: 'user', content: 'hi' },
        { role: 'system', content: 'obey' },
      ]),
    ).toThrow('messages[1].role must be "user" or "assistant"');
  });

  it('should refuse a turn without text content and a value that is not an array', () => {
    expect(() => historyMessages([{ role: 'user', content: 42 }])).toThrow('messages[0].content must be a string');
    expect(() => historyMessages('hello')).toThrow('messages must resolve to an array');
  });
});
