/**
 * Every threshold used by the math, with its default. Callers pass a Partial to override.
 * The README lists the same values; keep both in step.
 */
export interface UnderwritingParams {
  /** A deposit is "large" when amount >= largeDepositMultiple x median deposit ... */
  largeDepositMultiple: number;
  /** ... and amount >= largeDepositMinAmount. */
  largeDepositMinAmount: number;
  /** The median needs at least this many deposits; with fewer, no deposit is called large. */
  largeDepositMinSample: number;
  /** Round-number deposit: credit >= roundDepositMinAmount that is a multiple of roundDepositMultiple, not from a card processor. */
  roundDepositMinAmount: number;
  roundDepositMultiple: number;
  /** Cash withdrawals of at least this absolute amount are flagged. */
  cashWithdrawalMinAmount: number;
  /** Same counterparty + same amount debits seen at least this many times are repeat charges. */
  repeatChargeMinOccurrences: number;
  /** Same statement, same day, same amount and description: 2nd+ copy is a possible duplicate when |amount| >= this. */
  duplicateMinAmount: number;
  /** A recurring (daily/weekly) same-counterparty debit series without a lender name becomes a position at this many payments. */
  mcaMinOccurrences: number;
  /** ... when every payment is within this fraction of the median payment. */
  mcaAmountTolerance: number;
  /** A position is active when last seen within this many days of the as-of date. */
  positionActiveDays: number;
  /** End-of-day balance below this counts as a low-balance day (balance_health). */
  lowBalanceThreshold: number;
  /** Average daily / ending balance earns full marks at this fraction of average monthly deposits. */
  balanceTargetRatio: number;
  /** revenue factor: full marks when avg monthly revenue >= this x requested funding. */
  revenueFullScoreRatio: number;
  /** nsf_overdraft factor: points lost per NSF/overdraft event per month. */
  nsfPenaltyPerEventPerMonth: number;
  /** nsf_overdraft factor: extra points lost when an event falls in the last nsfRecentDays days. */
  nsfRecentPenalty: number;
  nsfRecentDays: number;
  /** deposit_frequency factor: full marks at this many revenue-deposit days per month. */
  depositDaysTarget: number;
  /** revenue_trend factor: points per 1% monthly growth (50 = flat). */
  trendPointsPerPct: number;
  /** debt_service factor: zero when monthly debt service reaches this fraction of monthly revenue. */
  debtServiceMaxRatio: number;
  /** transaction_screening factor: zero when this fraction of transactions is flagged. */
  screeningMaxRatio: number;
  /** cross_doc deductions (points) */
  crossDocOverlapPenalty: number;
  crossDocGapPenalty: number;
  crossDocBalanceMismatchPenalty: number;
  crossDocReconciliationPenalty: number;
  /** per statement in another currency than the deal's reporting currency */
  crossDocCurrencyPenalty: number;
  /** gaps of more days than this between consecutive statements are findings */
  gapToleranceDays: number;
  /** balance differences above this (USD) are mismatches */
  balanceTolerance: number;
  /** own-account transfer matching window (days) */
  transferMatchDays: number;
  /**
   * Look-back window (calendar months, integer >= 1): a statement whose last month lies this many
   * months or more before the newest statement's last month is stale and left out of every figure.
   */
  lookbackMonths: number;
  /** Affordability: the largest share of monthly revenue all positions together may take (0 < x <= 1). */
  maxTotalHoldback: number;
  /** CFCR: the requested advance is assumed repaid at factorRate over termMonths. */
  proposedFactorRate: number;
  proposedTermMonths: number;
  /** Existing positions: estimated payback = funding deposit x this factor rate (remaining balance = payback - paid since). */
  positionFactorRate: number;
  /** health composite weights (sum 1) */
  healthWeights: {
    revenue: number;
    balance_health: number;
    nsf_overdraft: number;
    deposit_frequency: number;
    revenue_trend: number;
    debt_service: number;
  };
}

export const DEFAULT_PARAMS: Readonly<UnderwritingParams> = Object.freeze({
  largeDepositMultiple: 3,
  largeDepositMinAmount: 1000,
  largeDepositMinSample: 3,
  roundDepositMinAmount: 1000,
  roundDepositMultiple: 1000,
  cashWithdrawalMinAmount: 1000,
  repeatChargeMinOccurrences: 3,
  duplicateMinAmount: 100,
  mcaMinOccurrences: 4,
  mcaAmountTolerance: 0.05,
  positionActiveDays: 14,
  lowBalanceThreshold: 500,
  balanceTargetRatio: 0.25,
  revenueFullScoreRatio: 1.5,
  nsfPenaltyPerEventPerMonth: 20,
  nsfRecentPenalty: 10,
  nsfRecentDays: 30,
  depositDaysTarget: 12,
  trendPointsPerPct: 5,
  debtServiceMaxRatio: 0.5,
  screeningMaxRatio: 0.2,
  crossDocOverlapPenalty: 10,
  crossDocGapPenalty: 10,
  crossDocBalanceMismatchPenalty: 15,
  crossDocReconciliationPenalty: 15,
  crossDocCurrencyPenalty: 20,
  gapToleranceDays: 3,
  balanceTolerance: 1,
  transferMatchDays: 3,
  lookbackMonths: 6,
  maxTotalHoldback: 0.25,
  proposedFactorRate: 1.35,
  proposedTermMonths: 6,
  positionFactorRate: 1.35,
  healthWeights: Object.freeze({
    revenue: 0.25,
    balance_health: 0.2,
    nsf_overdraft: 0.2,
    deposit_frequency: 0.1,
    revenue_trend: 0.1,
    debt_service: 0.15,
  }),
}) as UnderwritingParams;

/**
 * The defaults with `p` laid over them. Throws a RangeError for a look-back window, holdback cap,
 * factor rate or term the affordability and staleness rules cannot use.
 */
export function resolveParams(p?: Partial<UnderwritingParams>): UnderwritingParams {
  if (!p) return DEFAULT_PARAMS;
  const r = { ...DEFAULT_PARAMS, ...p, healthWeights: { ...DEFAULT_PARAMS.healthWeights, ...(p.healthWeights ?? {}) } };
  const fine = (x: number) => typeof x === 'number' && Number.isFinite(x);
  if (!fine(r.lookbackMonths) || !Number.isInteger(r.lookbackMonths) || r.lookbackMonths < 1) {
    throw new RangeError('lookbackMonths must be an integer of at least 1');
  }
  if (!fine(r.maxTotalHoldback) || r.maxTotalHoldback <= 0 || r.maxTotalHoldback > 1) {
    throw new RangeError('maxTotalHoldback must be a number greater than 0 and at most 1');
  }
  if (!fine(r.proposedFactorRate) || r.proposedFactorRate < 1) throw new RangeError('proposedFactorRate must be a number of at least 1');
  if (!fine(r.proposedTermMonths) || r.proposedTermMonths <= 0) throw new RangeError('proposedTermMonths must be a number greater than 0');
  if (!fine(r.transferMatchDays) || r.transferMatchDays < 0) throw new RangeError('transferMatchDays must be a number of at least 0');
  return r;
}
