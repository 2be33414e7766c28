"""Coupons: the orders users hold and everything that happens to them. `lifecycle` is the
one state machine (moves, who makes them, what they write, why they are refused);
`claims` takes a normal voucher, `services` pays and cancels, `refunds` gives money
back, `checkout` and `redemptions` use a coupon at a shop (`usage`, `discounts`), `jobs`
runs the pay timeouts and `sold` counts what shops sold. Reads are in `selectors`."""
