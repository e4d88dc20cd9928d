import { clause, field, paragraph } from '../domain/blocks';
import { checkDateOrder } from '../domain/field-checks';
import { t } from '../domain/inline';
import { formatMoney } from '../domain/money';
import type { TemplateDefinition } from '../domain/template';
import { currencyField, currencyOf, jurisdictionField, partyFields } from './parts/fields';
import { nameAndAddress, partyOf, SIGNS_FOR_AN_ORGANISATION, SIGNS_IN_PERSON } from './parts/parties';

/** An employer's written offer of employment, countersigned by the candidate to accept it. */
export const employmentOffer: TemplateDefinition = {
  slug: 'employment-offer',
  name: 'Offer of Employment',
  description:
    'An offer letter setting out the position, start date, pay, hours, probation and leave, which the candidate signs to accept.',
  fields: [
    ...partyFields('employer', 'Employer'),
    ...partyFields('candidate', 'Candidate', { name: 'Candidate (full name)' }),
    field('jobTitle', 'Job title', 'text', true),
    field('startDate', 'Start date', 'date', true),
    field('salary', 'Gross salary', 'amount', true),
    field('salaryPeriod', 'Salary period (for example "per year"; per year if empty)', 'text', false),
    currencyField,
    field('employmentType', 'Type of employment (full-time if empty)', 'text', false),
    field('hoursPerWeek', 'Normal working hours per week', 'integer', false, { min: 1, max: 80 }),
    field('workLocation', 'Place of work', 'text', false),
    field('reportsTo', 'Reports to (name or role)', 'text', false),
    field('probationMonths', 'Probation period in months', 'integer', false, { min: 0, max: 12 }),
    field('vacationDays', 'Paid vacation days per year', 'integer', false, { min: 0, max: 365 }),
    field('offerExpiryDate', 'Date by which the offer must be accepted', 'date', false),
    jurisdictionField({ courts: false }),
  ],
  example: {
    employerName: 'Contoso Analytics Inc.',
    employerAddress: '500 Market Street, San Francisco, CA 94105',
    candidateName: 'Jordan Lee',
    jobTitle: 'Senior Data Engineer',
    startDate: '2025-06-02',
    salary: '145000',
    currency: 'USD',
    hoursPerWeek: '40',
    workLocation: 'San Francisco, California (hybrid)',
    reportsTo: 'Head of Data Platform',
    probationMonths: '3',
    vacationDays: '20',
    offerExpiryDate: '2025-05-16',
    jurisdiction: 'the State of California',
  },
  check: (f) =>
    checkDateOrder(f, { earlier: 'offerExpiryDate', later: 'startDate', strict: false, blame: 'earlier' }),
  fileName: (f) => `employment-offer-${f.req('candidateName')}-${f.req('startDate')}`,
  compose: (f) => {
    const employer = partyOf(f, 'employer');
    const candidate = partyOf(f, 'candidate');
    const salary = formatMoney(currencyOf(f), f.req('salary'));
    const period = f.shown('salaryPeriod', 'per year');
    const type = f.shown('employmentType', 'full-time');
    const hours = f.opt('hoursPerWeek');
    const location = f.opt('workLocation');
    const reportsTo = f.opt('reportsTo');
    const probation = f.opt('probationMonths');
    const vacation = f.opt('vacationDays');
    const expiry = f.opt('offerExpiryDate');
    const jurisdiction = f.opt('jurisdiction');
    return {
      title: 'Offer of Employment',
      subtitle: nameAndAddress(employer, ', '),
      blocks: [
        paragraph(t`To: ${nameAndAddress(candidate, ', ')}`),
        paragraph(t`Dear ${candidate.name},`),
        paragraph(
          t`${employer.name} (the "Company") is pleased to offer you employment in the position of ${f.req('jobTitle')} on the terms set out in this letter. This letter, once signed by you and the Company, forms your contract of employment.`,
        ),
        clause(
          'Position and Duties',
          t`You will be employed as ${f.req('jobTitle')} on a ${type} basis${reportsTo ? t`, reporting to ${reportsTo}` : []}. You will carry out the duties normally associated with that position and any other reasonable duties the Company assigns to you consistent with your skills.`,
          t`You agree to devote your working time and attention to the Company's business, to follow its lawful and reasonable instructions and policies, and not to take on other paid work that conflicts with your duties without the Company's written consent.`,
        ),
        clause(
          'Start Date and Place of Work',
          location
            ? t`Your employment will start on ${f.req('startDate')}. Your normal place of work will be ${location}, and you may be asked to travel as reasonably required for your role.`
            : t`Your employment will start on ${f.req('startDate')}. Your normal place of work will be the Company's offices, and you may be asked to travel as reasonably required for your role.`,
        ),
        clause(
          'Compensation',
          t`You will be paid a gross salary of ${salary} ${period}, paid in arrears in accordance with the Company's normal payroll schedule and subject to the deductions required by law.`,
          t`Your salary will be reviewed annually. A review does not oblige the Company to increase your salary.`,
        ),
        clause(
          'Hours of Work',
          hours
            ? t`Your normal working hours are ${hours} hours per week, scheduled by the Company in line with its business needs. You may be required to work additional hours when reasonably necessary, in accordance with applicable law.`
            : t`Your normal working hours are those of a ${type} employee as scheduled by the Company in line with its business needs. You may be required to work additional hours when reasonably necessary, in accordance with applicable law.`,
        ),
        clause(
          'Probation',
          probation && probation !== '0'
            ? t`The first ${probation} months of your employment are a probationary period, during which the Company will assess your performance and suitability for the role and either party may end the employment on one (1) week's written notice.`
            : t`Your employment is not subject to a probationary period.`,
        ),
        clause(
          'Paid Time Off and Benefits',
          vacation
            ? t`You are entitled to ${vacation} days of paid vacation in each calendar year (pro rata for part years), in addition to public holidays, to be taken at times agreed with the Company.`
            : t`You are entitled to paid vacation in accordance with the Company's leave policy and applicable law, in addition to public holidays, to be taken at times agreed with the Company.`,
          t`You will be eligible to take part in the Company's benefit plans available to employees in your position, subject to the terms of those plans, which the Company may change from time to time.`,
          t`Sick leave and other leave are provided in accordance with the Company's policies and applicable law.`,
        ),
        clause(
          'Conditions of this Offer',
          t`This offer is conditional on your providing proof of your right to work in the country of your place of work before your start date, and on the Company receiving satisfactory references and any background checks permitted by law.`,
          t`You confirm that you are not bound by any agreement, such as a non-compete or confidentiality agreement, that would prevent you from performing your duties, and that you will not bring or use any confidential information belonging to a former employer.`,
        ),
        clause(
          'Confidentiality and Intellectual Property',
          t`During and after your employment you must keep confidential, and use only for the Company's business, all confidential information of the Company and its customers that you learn in the course of your employment.`,
          t`All work, inventions and other intellectual property you create in the course of your employment belong to the Company, to the extent permitted by law, and you will sign any documents reasonably needed to confirm this.`,
        ),
        clause(
          'Ending Employment',
          t`After any probationary period, either you or the Company may end your employment by giving the other one (1) month's written notice, or any longer notice required by law. The Company may pay your salary in lieu of notice. Nothing in this letter prevents the Company from ending your employment without notice for gross misconduct, where the law allows.`,
          t`When your employment ends you must return all Company property, documents and data in your possession.`,
        ),
        clause(
          'General',
          t`This letter, together with the Company's policies as in force from time to time, sets out the entire terms of your employment and replaces any earlier offers, discussions or representations. Any change to these terms must be in writing.`,
          jurisdiction
            ? t`Your employment is governed by the laws of ${jurisdiction}.`
            : t`Your employment is governed by the laws of the place where your normal place of work is located.`,
        ),
        paragraph(
          expiry
            ? t`To accept this offer, please sign and date this letter below and return it to the Company by ${expiry}, after which the offer lapses. We look forward to welcoming you.`
            : t`To accept this offer, please sign and date this letter below and return it to the Company. We look forward to welcoming you.`,
        ),
      ],
      signatures: {
        intro: t`Signed for the Company, and accepted by the candidate, who confirms having read and agreed to the terms of this offer.`,
        parties: [
          { role: 'For the Company', name: employer.name, lines: SIGNS_FOR_AN_ORGANISATION },
          { role: 'Accepted by the candidate', name: candidate.name, lines: SIGNS_IN_PERSON },
        ],
      },
    };
  },
};
