"""Early stopping, as a trainer callback: stop when validation stops improving, keep the best.

After each evaluation the callback compares the validation loss with the best so far. It keeps a
copy of the best weights in memory; after `patience` evaluations without a better one it asks the
trainer to stop, and when training ends (stopped or not) it puts the best weights back.
The untrained evaluation at step 0 is not a candidate: early stopping chooses among trained models.
"""

from __future__ import annotations

import copy


class EarlyStopping:
    def __init__(self, patience: int | None = None, key: str = "val_loss") -> None:
        self.patience, self.key = patience, key
        self.best: float | None = None
        self.best_eval = -1  # index among the evaluations seen (0 = the first after training began)
        self.evals = 0
        self.state = None
        self.stopped = False

    def __call__(self, event: str, trainer) -> None:
        if event == "eval" and trainer.step > 0:
            value = trainer.last_eval[self.key]
            if self.best is None or value < self.best:
                self.best, self.best_eval = value, self.evals
                self.state = copy.deepcopy(trainer.model.state_dict())
            if self.patience is not None and self.evals - self.best_eval >= self.patience:
                self.stopped = True
                trainer.request_stop(f"no better {self.key} for {self.patience} evaluations")
            self.evals += 1
        elif event == "end" and self.state is not None and self.patience is not None:
            trainer.model.load_state_dict(self.state)
