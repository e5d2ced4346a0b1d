"""Walk-forward season backtest on the demo league's recorded season (issue 22, part 5).

* `data`: the recorded season as arrays (`SeasonData`), and a copy with the future replaced
  by noise (the leak test);
* `knowledge`: what a manager knows on a morning (`Morning`): projections from box scores
  before the day, the day's injury statuses without return dates, who is on waivers;
* `sim`: the day-by-day simulation of one managed team under one strategy;
* `strategies`: the baselines (lineups only, the diligent human's streaming rule); FanVise
  itself is measured through the product (benchmarks/product_run.py), never simulated;
* `run`: the baselines' runs, summaries and the sign test.
"""
