/**
 * Orders in which to measure n things round after round so that each is
 * measured right after each other one equally often (a Williams design), and
 * in every position equally often. With one fixed order turned round by round,
 * each thing always follows the same one, and whatever that one leaves behind
 * (its garbage collected, its idle work, a warmer or busier machine) is
 * counted against it alone.
 */
export function balancedOrders(n: number): number[][] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`balancedOrders needs a positive whole count, not ${n}`);
  // 0, 1, n-1, 2, n-2, …: consecutive differences that are all different mod n (for even n).
  const first: number[] = [];
  for (let i = 0, low = 1, high = n - 1; i < n; i++) first.push(i === 0 ? 0 : i % 2 === 1 ? low++ : high--);
  const orders = first.map((_, shift) => first.map((x) => (x + shift) % n));
  // For odd n the shifted rows cover every ordered pair of neighbours once only together with their reverses.
  return n % 2 === 0 ? orders : [...orders, ...orders.map((o) => [...o].reverse())];
}
