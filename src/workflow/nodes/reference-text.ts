import { Type } from '@sinclair/typebox';

/** A string whose `{{…}}` references the engine resolves before the node runs. */
export const referenceText = Type.String({ description: 'Text with {{inputs.x}} / {{node-id.output}} references' });
