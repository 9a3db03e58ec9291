import type { FunctionTool } from '../../shared/tool-types';
import { stem, tokenize } from './tokenize';
import { ToolIndex, toolDocument } from './tool-index';

const tool = (name: string, description: string, properties: Record<string, string> = {}): FunctionTool => ({
  type: 'function',
  function: {
    name,
    description,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, text]) => [key, { type: 'string', description: text }]),
      ),
    },
  },
});

const TOOLS = [
  tool('get_weather', 'Current conditions for a city', { city: 'City name' }),
  tool('sendEmail', 'Delivers a message to a recipient', { to: 'Recipient address', subject: 'Subject line' }),
  tool('stock_quote', 'Latest trading price of a ticker symbol', { symbol: 'Ticker' }),
  tool('translate_text', 'Translates text into another language', { target_language: 'ISO code' }),
  tool('create_calendar_event', 'Adds an appointment to the calendar', { start: 'Start time' }),
  tool('delete_file', 'Removes a file from storage', { path: 'File path' }),
];
const index = new ToolIndex(TOOLS.map((entry) => toolDocument(entry)));
const top = (query: string) => index.rank(query, 1)[0]?.name;

describe('tokenize', () => {
  it('should split identifiers, drop stop words and stem', () => {
    expect(tokenize('getWeatherForecasts for the HTTPServer in_cities')).toEqual([
      'get',
      'weather',
      'forecast',
      'http',
      'server',
      'city',
    ]);
  });

  it.each([
    ['forecasts', 'forecast'],
    ['created', 'creat'],
    ['create', 'creat'],
    ['creation', 'creat'],
    ['running', 'run'],
    ['queries', 'query'],
    ['addresses', 'address'],
  ])('should stem %s to %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it('should cut CJK text into bigrams and add the English words of the glossary', () => {
    expect(tokenize('北京天气')).toEqual(['weather', '北京', '京天', '天气']);
  });
});

describe(ToolIndex.name, () => {
  it('should rank by name, description and parameter words', () => {
    expect(top('What is the weather in Paris?')).toBe('get_weather');
    expect(top('send an email to Bob')).toBe('sendEmail');
    expect(top('translate this into German, language code de')).toBe('translate_text');
  });

  it('should meet questions that use other words for the same thing through stems and synonyms', () => {
    expect(top('What is the forecast for Oslo tomorrow?')).toBe('get_weather');
    expect(top('How much does an AAPL share cost right now?')).toBe('stock_quote');
    expect(top('erase the old report document')).toBe('delete_file');
    expect(top('schedule a meeting on Monday')).toBe('create_calendar_event');
  });

  it('should meet a Chinese question through the glossary', () => {
    expect(top('明天上海的天气怎么样？')).toBe('get_weather');
    expect(top('帮我翻译这段话')).toBe('translate_text');
  });

  it('should find the tool a Chinese question asks for among tools that share its words', () => {
    const tools = [
      tool('gmail_get_profile', 'Gets the Gmail profile of the user: email address and message count'),
      tool('list_users', 'Lists the users of the account'),
      tool('publish_page', 'Publishes a draft page'),
      tool('unpublish_page', 'Unpublishes a published page so that readers no longer see it'),
      tool('cancel_order', 'Cancels an order that has not shipped'),
      tool('delete_attachment', 'Deletes an attachment of a record', { record_id: 'Record ID' }),
      tool('update_record', 'Updates fields of a record', { record_id: 'Record ID' }),
    ];
    const chinese = new ToolIndex(tools.map((entry) => toolDocument(entry)));
    const first = (query: string) => chinese.rank(query, 1)[0]?.name;

    expect(first('怎么获取我Gmail账号的邮箱地址？')).toBe('gmail_get_profile');
    expect(first('取消发布这个页面')).toBe('unpublish_page');
    expect(first('删除这条记录的附件')).toBe('delete_attachment');
    expect(first('修改一条记录的字段')).toBe('update_record');
    expect(first('列出账户里的所有用户')).toBe('list_users');
  });

  it('should raise a tool whose name the question says above one that shares its rarer words elsewhere', () => {
    const tools = [
      tool('create_trouble_ticket', 'Creates a trouble ticket record for an incident in the incident table'),
      tool('delete_record_from_table', 'Deletes the specified record from the specified table'),
      tool('get_weather', 'Current conditions for a city'),
    ];
    const documents = tools.map((entry) => toolDocument(entry));
    const question = 'remove a specific incident record from the table';

    expect(new ToolIndex(documents).rank(question, 1)[0]?.name).toBe('delete_record_from_table');
    expect(new ToolIndex(documents, { nameCoverage: 0 }).rank(question, 1)[0]?.name).toBe('create_trouble_ticket');
  });

  it("should hold the WordNet relatives of the words of a tool's name", () => {
    const relatives = toolDocument(tool('get_overlapping_reservation', 'Determines whether one exists')).fields
      .nameRelatives;

    expect(relatives).toEqual(expect.arrayContaining(['lap', 'reserv']));
    expect(relatives).not.toContain('overlap');
  });

  it('should meet a question through the relatives of a name word that its own words do not reach', () => {
    const tools = [tool('get_invoice', 'Returns one by its id'), tool('get_fee_total', 'Adds the fees due')];
    const documents = tools.map((entry) => toolDocument(entry));
    const question = 'calculate what I owe';

    expect(new ToolIndex(documents).rank(question, 1)[0]?.name).toBe('get_invoice');
    expect(new ToolIndex(documents, { weights: { nameRelatives: 0 } }).rank(question, 1)[0]?.name).toBe(
      'get_fee_total',
    );
  });

  it('should read a short form one tool says as the long form another tool defines, and back', () => {
    const tools = [
      tool('get_ci_actions', 'Get active CI actions for a CI'),
      tool('run_check', 'Runs a check against the given configuration item'),
      tool('list_cis', 'Returns the configuration items (CIs) of a class'),
    ];
    const documents = tools.map((entry) => toolDocument(entry));
    const question = 'Which actions are running on a configuration item?';

    expect(new ToolIndex(documents).rank(question, 1)[0]?.name).toBe('get_ci_actions');
    expect(new ToolIndex(documents, { weights: { abbreviations: 0 } }).rank(question, 1)[0]?.name).toBe('run_check');
  });

  it('should rank nothing for a question that shares no word with any tool', () => {
    expect(index.rank('zzz qqq')).toEqual([]);
  });

  it('should give plain BM25 without synonyms when asked', () => {
    const plain = new ToolIndex(
      TOOLS.map((entry) => toolDocument(entry, { stem: false })),
      { synonymWeight: 0, tokenize: { stem: false }, expand: false },
    );

    expect(plain.rank('What is the forecast for Oslo tomorrow?')).toEqual([]);
  });
});
