import { h } from '../../shared/dom';
import { formatBytes, formatTime } from '../ui';
import type { ViewContext } from '../context';

const PLAN_NAMES = { free: 'Free', pro: 'Pro', business: 'Business' } as const;

export const renderPlan = async (context: ViewContext): Promise<void> => {
  // Fresh figures: a document may have been signed since the page loaded.
  const session = (await context.refreshSession()) ?? context.session;
  const { usage } = session;
  const limit = usage.limits.documentsPerMonth;
  const used = h(
    'p',
    { class: 'usage-figure' },
    h('strong', {}, String(usage.documentsUsed)),
    limit === null ? ' documents this month (unlimited)' : ` of ${limit} documents used this month`,
  );
  const meter =
    limit === null
      ? null
      : h('meter', {
          min: 0,
          max: limit,
          value: usage.documentsUsed,
          high: Math.max(0, limit - 1),
          'aria-label': 'Documents used this month',
        });
  context.main.append(
    h('h1', {}, 'Plan & usage'),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'plan-title' },
      h('h2', { id: 'plan-title' }, `${PLAN_NAMES[session.plan]} plan`),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Documents a month'),
        h('dd', { 'data-testid': 'plan-documents' }, limit === null ? 'Unlimited' : String(limit)),
        h('dt', {}, 'API access (/api/v1)'),
        h(
          'dd',
          { 'data-testid': 'plan-api' },
          usage.limits.apiAccess ? 'Yes' : 'No: sign documents here in the dashboard',
        ),
        h('dt', {}, 'Largest file'),
        h('dd', { 'data-testid': 'plan-file-size' }, formatBytes(usage.limits.maxFileBytes)),
      ),
      h('p', { class: 'hint' }, 'To change your plan, contact us: plans are changed by an operator for now.'),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'usage-title' },
      h('h2', { id: 'usage-title' }, `This month (${usage.month}, UTC)`),
      used,
      meter,
      h(
        'p',
        {},
        usage.documentsRemaining === null
          ? 'No monthly limit.'
          : `${usage.documentsRemaining} left. The count starts again on ${formatTime(usage.resetsAt)}.`,
      ),
    ),
  );
};
