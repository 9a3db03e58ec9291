import type { ChatMessage } from '../../shared/chat-types';
import type { FunctionTool } from '../../shared/tool-types';
import { toolDocument } from './tool-index';
import { unitVector } from './semantic-ranking';
import { SEARCH_TOOLS, ToolSelection, conversationQuery, foundTools, type SemanticSearch } from './tool-selection';
import { DEFAULT_FUSION } from './semantic-ranking';
import { UsageEvidence } from './usage-evidence';

const tool = (name: string, description: string): FunctionTool => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties: {} } },
});
const TOOLS = [
  tool('get_weather', 'Current weather for a city'),
  tool('stock_quote', 'Latest price of a stock ticker'),
  tool('send_email', 'Sends an email'),
  tool('translate_text', 'Translates text'),
  tool('create_invoice', 'Creates an invoice for a customer'),
  tool('list_files', 'Lists files in a folder'),
];
const NAMES = TOOLS.map((entry) => entry.function.name);
const selection = (maxTools: number, always: string[] = []) =>
  new ToolSelection(
    maxTools,
    always,
    TOOLS,
    TOOLS.map((entry) => toolDocument(entry)),
  );
const user = (content: string): ChatMessage => ({ role: 'user', content });
const calls = (...names: string[]): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: names.map((name, index) => ({
    id: `${name}_${index}`,
    type: 'function',
    function: { name, arguments: '{}' },
  })),
});

describe(ToolSelection.name, () => {
  it('should pick the k tools that fit the task', () => {
    expect(selection(2).pick([user('What is the weather and the AAPL stock price?')], NAMES)).toEqual([
      'get_weather',
      'stock_quote',
    ]);
  });

  it('should count always and already called tools within k', () => {
    const messages = [
      user('What is the weather in Rome?'),
      calls('list_files'),
      { role: 'tool', tool_call_id: 'list_files_0', content: 'a.txt' } as ChatMessage,
    ];

    const picked = selection(3, ['send_email']).pick(messages, NAMES);

    expect(picked).toHaveLength(3);
    expect(picked).toEqual(expect.arrayContaining(['send_email', 'list_files', 'get_weather']));
  });

  it('should add the tools search_tools found beyond k, for the rest of the conversation', () => {
    const sut = selection(1);
    const answer = sut.search('invoice', new Set(['get_weather']));
    const messages: ChatMessage[] = [
      user('What is the weather in Rome?'),
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 's1', type: 'function', function: { name: SEARCH_TOOLS, arguments: '{"query":"invoice"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 's1', content: answer },
    ];

    expect(answer).toMatch(/^These tools are offered to you from now on:\n- create_invoice: Creates an invoice/);
    const found = foundTools(messages);
    expect(found).toContain('create_invoice');
    // k = 1 ranked for the task, then every found tool (WordNet may find weaker matches too: bill ~ list).
    expect(sut.pick(messages, NAMES)).toEqual(NAMES.filter((name) => name === 'get_weather' || found.includes(name)));
  });

  it('should not return tools already offered from search_tools, and say when nothing matches', () => {
    const sut = selection(2);

    expect(sut.search('weather', new Set(['get_weather']))).not.toContain('- get_weather');
    expect(sut.search('zzz', new Set())).toBe(
      'No other tool matches "zzz". Try other words, or use the tools you have.',
    );
  });

  it('should build the query from the task, the latest user message and the latest results', () => {
    const query = conversationQuery([
      { role: 'system', content: 'You help.' },
      user('Plan my trip'),
      calls('get_weather'),
      { role: 'tool', tool_call_id: 'get_weather_0', content: 'Rain tomorrow' },
      user('And the flights?'),
    ]);

    expect(query).toBe('Plan my trip\nAnd the flights?\nRain tomorrow');
  });

  describe('with embeddings', () => {
    // A scripted model: one dimension per meaning, so "haircut" meets "barber" without a shared word.
    const MEANINGS = [
      ['weather', 'rain', 'umbrella'],
      ['stock', 'ticker', 'dow'],
      ['email', 'mail'],
      ['invoice', 'bill'],
    ];
    const embed = (text: string): Float32Array => {
      const lower = text.toLowerCase();
      return unitVector([0.1, ...MEANINGS.map((words) => (words.some((word) => lower.includes(word)) ? 1 : 0))]);
    };
    const semantic = (overrides: Partial<SemanticSearch> = {}) => {
      const search = {
        vectors: TOOLS.map((entry) => embed(`${entry.function.name} ${entry.function.description}`)),
        embed: jest.fn((text: string) => Promise.resolve(embed(text))),
        onFailure: jest.fn(),
        ...overrides,
      };
      return {
        search,
        sut: new ToolSelection(
          1,
          [],
          TOOLS,
          TOOLS.map((entry) => toolDocument(entry)),
          search,
        ),
      };
    };

    it('should offer the tool whose meaning fits when the question shares no word with it', async () => {
      const { sut } = semantic();
      const messages = [user('How did the Dow close for AAPL?')];

      expect(selection(1).pick(messages, NAMES)).not.toEqual(['stock_quote']);
      await sut.prepare(messages);
      expect(sut.pick(messages, NAMES)).toEqual(['stock_quote']);
    });

    it('should embed each query once', async () => {
      const { sut, search } = semantic();
      const messages = [user('Do I need an umbrella tomorrow?')];

      await sut.prepare(messages);
      await sut.prepare(messages);
      await sut.prepare(messages, undefined, 'pay the bill');

      expect(search.embed).toHaveBeenCalledTimes(2);
      expect(search.embed).toHaveBeenNthCalledWith(1, 'Do I need an umbrella tomorrow?', undefined);
      expect(search.embed).toHaveBeenNthCalledWith(2, 'pay the bill', undefined);
      expect(sut.search('pay the bill', new Set())).toContain('- create_invoice: ');
    });

    it('should rank lexically from the first failed query on, and report the failure once', async () => {
      const failure = new Error('embeddings 503: overloaded');
      const { sut, search } = semantic({ embed: jest.fn(() => Promise.reject(failure)) });
      const messages = [user('What is the weather in Rome?')];

      await sut.prepare(messages);
      await sut.prepare([user('umbrella?')]);

      expect(search.onFailure).toHaveBeenCalledTimes(1);
      expect(search.onFailure).toHaveBeenCalledWith(failure);
      expect(search.embed).toHaveBeenCalledTimes(1);
      expect(sut.usesEmbeddings).toBe(false);
      expect(sut.pick(messages, NAMES)).toEqual(['get_weather']);
    });

    it('should ignore vectors that do not match the tools one to one', () => {
      const { sut } = semantic({ vectors: [embed('weather')] });

      expect(sut.usesEmbeddings).toBe(false);
    });
  });

  describe('learning from use', () => {
    const learning = (evidence: UsageEvidence) =>
      new ToolSelection(
        1,
        [],
        TOOLS,
        TOOLS.map((entry) => toolDocument(entry)),
        undefined,
        DEFAULT_FUSION,
        evidence,
      );
    const task = 'Bill the Acme account for March';
    const answered = (name: string): ChatMessage[] => [
      user(task),
      calls(name),
      { role: 'tool', tool_call_id: `${name}_0`, content: 'done' },
    ];

    it('should learn the task terms for a tool it offered and the model called', () => {
      const evidence = new UsageEvidence();
      const sut = learning(evidence);
      const offered = sut.pick([user(task)], NAMES);

      sut.pick(answered(offered[0]), NAMES);

      expect(evidence.scores(task).has(offered[0])).toBe(true);
    });

    it('should not learn a call of a tool it never offered', () => {
      const evidence = new UsageEvidence();
      const sut = learning(evidence);
      const offered = sut.pick([user(task)], NAMES);
      const other = NAMES.find((name) => !offered.includes(name))!;

      sut.pick(answered(other), NAMES);

      expect(evidence.scores(task).size).toBe(0);
    });

    it('should offer the tool the owner used for such tasks before', () => {
      const evidence = new UsageEvidence();
      evidence.record('Do the monthly chores of Acme', 'create_invoice');
      evidence.record('Do the monthly chores of Globex', 'create_invoice');
      const next = [user('Monthly chores of Initech, please')];

      expect(learning(new UsageEvidence()).pick(next, NAMES)).not.toEqual(['create_invoice']);
      expect(learning(evidence).pick(next, NAMES)).toEqual(['create_invoice']);
    });

    it("should keep a tool's evidence under its key, whatever the tool is called now", () => {
      const evidence = new UsageEvidence();
      const keys = NAMES.map((name) => `id-of-${name}`);
      const keyed = () =>
        new ToolSelection(
          1,
          [],
          TOOLS,
          TOOLS.map((entry) => toolDocument(entry)),
          undefined,
          DEFAULT_FUSION,
          evidence,
          keys,
        );
      const offered = keyed().pick([user(task)], NAMES);
      const sut = keyed();
      sut.pick([user(task)], NAMES);

      sut.pick(answered(offered[0]), NAMES);

      expect([...evidence.scores(task).keys()]).toEqual([`id-of-${offered[0]}`]);
      expect(keyed().pick([user('Monthly paperwork of Acme')], NAMES)).toEqual(offered);
    });
  });
});
