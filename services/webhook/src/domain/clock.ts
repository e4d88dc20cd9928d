/** The service's clock: what is due, when to retry, when a failing streak is long enough. Tests move it. */
export type Clock = () => Date;
