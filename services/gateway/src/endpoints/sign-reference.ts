import { z } from 'zod';
import { ZSignFields } from './sign-fields';
import { escapeHtml } from '../http/html';

export interface FieldReference {
  name: string;
  type: string;
  required: string;
  default?: unknown;
  rule: string;
  description: string;
}

export interface SignReference {
  endpoint: string;
  contentType: string;
  authentication: string;
  /** Optional request headers and what they do. */
  headers: Record<string, string>;
  fields: FieldReference[];
  response: Record<string, string>;
  errors: Record<string, string>;
}

interface JsonSchemaProperty {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  description?: string;
  items?: unknown;
}

const ruleOf = (p: JsonSchemaProperty): string => {
  const parts: string[] = [];
  if (p.enum) parts.push(`one of ${p.enum.join(', ')}`);
  if (p.minimum !== undefined && p.maximum !== undefined) parts.push(`${p.minimum}-${p.maximum}`);
  if (p.type === 'integer') parts.push('integer');
  if (p.format === 'email') parts.push('email address');
  if (p.pattern?.startsWith('^#')) parts.push('hex colour #rrggbb');
  if (p.maxLength !== undefined && p.format !== 'email') parts.push(`at most ${p.maxLength} characters`);
  if (p.type === 'array') parts.push('JSON array of {x, y, page, width}');
  return parts.join('; ');
};

/** The field reference, derived from the schema POST /api/v1/sign validates with. */
export const signReference = (options: { maxFileBytes: number }): SignReference => {
  const output = z.toJSONSchema(ZSignFields, { io: 'output', unrepresentable: 'any' }) as {
    properties: Record<string, JsonSchemaProperty>;
  };
  const input = z.toJSONSchema(ZSignFields, { io: 'input', unrepresentable: 'any' }) as {
    required?: string[];
  };
  const conditional: Record<string, string> = {
    signatureData: 'in draw and upload mode',
    typedName: 'when mode=type',
  };
  const fields: FieldReference[] = [
    {
      name: 'file',
      type: 'file',
      required: 'yes',
      rule: `PDF, PNG or JPG (type taken from the content); at most ${options.maxFileBytes / 1024 / 1024} MB`,
      description: 'The document to sign. An image becomes a one-page PDF.',
    },
    ...Object.entries(output.properties).map(([name, p]) => ({
      name,
      type: p.type === 'array' ? 'JSON array' : (p.type ?? 'string'),
      required: input.required?.includes(name)
        ? 'yes'
        : conditional[name]
          ? `yes, ${conditional[name]}`
          : 'no',
      ...(p.default !== undefined ? { default: p.default } : {}),
      rule: ruleOf(p),
      description: p.description ?? '',
    })),
  ];
  return {
    endpoint: 'POST /api/v1/sign',
    contentType: 'multipart/form-data',
    authentication: 'Authorization: Bearer <API_KEY> (svc_live_…), Business plan',
    headers: {
      'Idempotency-Key':
        'optional, 1-255 visible ASCII characters: a retry with the same key and the same request returns the same signed document (Idempotent-Replayed: true) instead of signing again',
    },
    fields,
    response: {
      '200':
        'application/pdf: the signed PDF, with headers X-Audit-Id, X-Signed-At, X-File-Hash, Content-Disposition',
    },
    errors: {
      '400': 'a field is missing or invalid (the message names it)',
      '401': 'Authorization header missing, key invalid or revoked',
      '403': 'account without API access (Business plan)',
      '409': 'Idempotency-Key already used for a different request',
      '413': 'file larger than the limit',
      '429': 'rate limit exceeded (see Retry-After)',
      '503': 'a service behind the gateway is unavailable; retry',
    },
  };
};

/** A default value as the page shows it (the defaults are strings and numbers). */
const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

const inputFor = (f: FieldReference): string => {
  if (f.name === 'file') return `<input type="file" name="file" accept=".pdf,.png,.jpg,.jpeg" required>`;
  if (f.name === 'mode') {
    return `<select name="mode">${['draw', 'type', 'upload'].map((m) => `<option>${m}</option>`).join('')}</select>`;
  }
  if (f.name === 'sigColor')
    return `<input type="color" name="sigColor" value="${escapeHtml(shown(f.default))}">`;
  if (f.name === 'signatureData' || f.name === 'positions') {
    return `<textarea name="${f.name}" rows="2" placeholder="${f.name === 'positions' ? '[{&quot;x&quot;:10,&quot;y&quot;:80,&quot;page&quot;:0,&quot;width&quot;:25}]' : 'data:image/png;base64,...'}"></textarea>`;
  }
  const type =
    f.type === 'number' || f.type === 'integer' ? 'number' : f.name === 'signerEmail' ? 'email' : 'text';
  const placeholder = f.default !== undefined ? ` placeholder="${escapeHtml(shown(f.default))}"` : '';
  return `<input type="${type}" step="any" name="${f.name}"${placeholder}${f.required === 'yes' ? ' required' : ''}>`;
};

/** The same reference as an HTML page with a form that signs a document with your key. */
export const renderSignReference = (ref: SignReference): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>POST /api/v1/sign — field reference</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #1f2937; }
  table { border-collapse: collapse; width: 100%; margin: 1rem 0 2rem; }
  th, td { text-align: left; border-bottom: 1px solid #e5e7eb; padding: .4rem .6rem; vertical-align: top; }
  th { background: #f3f4f6; }
  code { background: #f3f4f6; padding: 0 .25rem; border-radius: 3px; }
  form { display: grid; grid-template-columns: 12rem 1fr; gap: .5rem 1rem; align-items: center; }
  form textarea, form input[type=text], form input[type=email], form input[type=number], form input[type=password] { width: 100%; box-sizing: border-box; }
  button { grid-column: 2; padding: .5rem 1rem; background: #1e3a8a; color: white; border: 0; border-radius: 4px; cursor: pointer; }
  #result { margin-top: 1rem; white-space: pre-wrap; }
</style>
</head>
<body>
<h1><code>${escapeHtml(ref.endpoint)}</code></h1>
<p>Request: <code>${escapeHtml(ref.contentType)}</code>. Authentication: <code>${escapeHtml(ref.authentication)}</code>.
Positions are percentages of the page as you see it, origin top-left; <code>x</code>, <code>y</code> place the top-left corner of the signature.</p>
<table id="fields">
<thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Default</th><th>Rule</th><th>Description</th></tr></thead>
<tbody>
${ref.fields
  .map(
    (f) =>
      `<tr data-field="${escapeHtml(f.name)}"><td><code>${escapeHtml(f.name)}</code></td><td>${escapeHtml(f.type)}</td><td>${escapeHtml(f.required)}</td><td>${f.default === undefined ? '' : `<code>${escapeHtml(shown(f.default))}</code>`}</td><td>${escapeHtml(f.rule)}</td><td>${escapeHtml(f.description)}</td></tr>`,
  )
  .join('\n')}
</tbody>
</table>
<h2>Request headers</h2>
<table id="headers"><tbody>
${Object.entries(ref.headers)
  .map(([name, text]) => `<tr><td><code>${escapeHtml(name)}</code></td><td>${escapeHtml(text)}</td></tr>`)
  .join('\n')}
</tbody></table>
<h2>Responses</h2>
<table><tbody>
${Object.entries({ ...ref.response, ...ref.errors })
  .map(([status, text]) => `<tr><td><code>${status}</code></td><td>${escapeHtml(text)}</td></tr>`)
  .join('\n')}
</tbody></table>
<h2>Try it</h2>
<form id="try">
<label for="apiKey">API key</label><input type="password" id="apiKey" placeholder="svc_live_…" autocomplete="off" required>
${ref.fields.map((f) => `<label>${escapeHtml(f.name)}</label>${inputFor(f)}`).join('\n')}
<button type="submit">Sign</button>
</form>
<div id="result" role="status"></div>
<script>
document.getElementById('try').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.target;
  const data = new FormData(form);
  for (const [k, v] of [...data.entries()]) if (v === '' || (v instanceof File && v.size === 0 && k !== 'file')) data.delete(k);
  const out = document.getElementById('result');
  out.textContent = 'Signing…';
  const res = await fetch(location.pathname, { method: 'POST', body: data, headers: { Authorization: 'Bearer ' + document.getElementById('apiKey').value } });
  if (!res.ok) { out.textContent = res.status + ': ' + (await res.json()).error; return; }
  const blob = await res.blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = 'signed.pdf';
  a.textContent = 'Download the signed PDF';
  out.textContent = 'Signed. Audit ID ' + res.headers.get('X-Audit-Id') + ' at ' + res.headers.get('X-Signed-At') + '. ';
  out.appendChild(a);
});
</script>
</body>
</html>
`;
