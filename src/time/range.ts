/** [from, to) in ms since the epoch. */
export interface TimeRange {
  readonly from: number;
  readonly to: number;
}
