import { SpillwayError } from '../../errors.js';
import type { Conversation, TranscriptFormat, TranscriptReader } from '../transcript.js';
import { API_BODY_READERS } from './api-body.js';
import { blockLinesReader } from './block-lines.js';
import { claudeCodeReader } from './claude-code.js';
import { codexReader } from './codex.js';
import { geminiChatReader } from './gemini-chat.js';
import { geminiCliReader } from './gemini-cli.js';
import { managedAgentsReader } from './managed-agents.js';
import { miniSweAgentReader } from './mini-swe-agent.js';
import { openHandsReader } from './openhands.js';
import { piSessionReader } from './pi-session.js';
import { quotedStart } from './quoted.js';
import { sweAgentReader } from './swe-agent.js';

/** Every reader, in detection order (the most specific first). */
export const READERS: readonly TranscriptReader[] = [
  codexReader,
  claudeCodeReader,
  piSessionReader,
  managedAgentsReader,
  geminiCliReader,
  blockLinesReader,
  geminiChatReader,
  openHandsReader,
  sweAgentReader,
  ...API_BODY_READERS,
  miniSweAgentReader,
];

/**
 * Reads a transcript, detecting its format from its content unless `format` forces one. A text
 * in no known format is an error that lists what was expected.
 *
 * @example
 * const { format, conversations } = readTranscript(text, 'session.jsonl');
 */
export function readTranscript(
  text: string,
  name: string,
  format?: TranscriptFormat | string,
): { format: TranscriptFormat; conversations: Conversation[] } {
  if (format !== undefined) {
    const reader = READERS.find((r) => r.format === format);
    if (!reader) {
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        `unknown transcript format "${format}"; formats: ${READERS.map((r) => r.format).join(', ')}`,
      );
    }
    return { format: reader.format, conversations: reader.read(text, name) };
  }
  const reader = READERS.find((r) => r.detect(text));
  if (!reader) {
    throw new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      `${name}: not a transcript spillway can read (${firstLine(text)}); expected one of:\n${READERS.map((r) => `  - ${r.format}: ${r.expects}`).join('\n')}\n(use --format to force one)`,
    );
  }
  return { format: reader.format, conversations: reader.read(text, name) };
}

/** The first non-blank line, shortened: what did not fit any reader. */
function firstLine(text: string): string {
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    const line = text
      .slice(start, end < 0 ? Math.min(text.length, start + 200) : Math.min(end, start + 200))
      .trim();
    if (line) return quotedStart(line);
    if (end < 0) break;
    start = end + 1;
  }
  return 'the file is empty';
}

export { escapeControls } from './quoted.js';
export {
  API_BODY_READERS,
  blockLinesReader,
  claudeCodeReader,
  codexReader,
  geminiChatReader,
  geminiCliReader,
  managedAgentsReader,
  miniSweAgentReader,
  openHandsReader,
  piSessionReader,
  sweAgentReader,
};
