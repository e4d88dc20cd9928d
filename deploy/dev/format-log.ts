const COLORS: Record<string, string> = {
  gateway: '36',
  key: '35',
  'document-store': '33',
  'pdf-signer': '32',
  template: '34',
  mailer: '94',
  mail: '96',
};
const LEVEL_COLORS: Record<string, string> = { debug: '90', info: '0', warn: '33', error: '31' };
const tty = process.stdout.isTTY;
const paint = (code: string, text: string) => (tty ? `\u001b[${code}m${text}\u001b[0m` : text);

/** One service log line (JSON) as `service | HH:MM:SS level msg key=value…`; other lines as they are. */
export const formatLogLine = (service: string, line: string): string => {
  const tag = paint(COLORS[service] ?? '0', service.padEnd(14));
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `${tag} | ${line}`;
  }
  const { time, level, msg, service: _service, trace_id: _t, span_id: _s, ...rest } = entry;
  const clock = typeof time === 'string' ? time.slice(11, 19) : '';
  const lvl = typeof level === 'string' ? level : 'info';
  const extras = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${tag} | ${clock} ${paint(LEVEL_COLORS[lvl] ?? '0', lvl.padEnd(5))} ${String(msg)}${extras ? `  ${extras}` : ''}`;
};
