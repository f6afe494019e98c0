"""This app's clients are OpenCoreML's Swift SuperNodes (`opencoreml federated join`), which
connect to the SuperLink themselves. A Python SuperNode that runs this app instead gets an error
reply that says so, rather than a model trained by something else."""

from flwr.app import Message
from flwr.clientapp import ClientApp

app = ClientApp()

_REASON = (
    "this Flower app trains OpenCoreML models on OpenCoreML's Swift clients; "
    "join with `opencoreml federated join MODEL --data DATA --superlink HOST:PORT` instead of flower-supernode"
)


@app.train()
def train(msg: Message, context) -> Message:
    raise RuntimeError(_REASON)


@app.evaluate()
def evaluate(msg: Message, context) -> Message:
    raise RuntimeError(_REASON)
