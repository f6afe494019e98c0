"""The critical path of each round of a federation run with `Federated/run-local.sh --profile`.

Reads OUT/server-profile.jsonl (the ServerApp's phases) and OUT/client-*-profile.jsonl (each
client's, when the clients wrote one) and prints, per phase, the mean seconds over the rounds
(the first round left out: it includes starting up) along the round's critical path: for each
half of a round (train, evaluate) the client whose reply was pushed last.

Usage: python3 Federated/profile_rounds.py OUT [--markdown]
"""

import glob
import json
import os
import statistics
import sys


def load(path):
    with open(path) as file:
        return [json.loads(line) for line in file if line.strip()]


def main():
    out = sys.argv[1]
    server = load(os.path.join(out, "server-profile.jsonl"))
    clients = [load(path) for path in sorted(glob.glob(os.path.join(out, "client-*-profile.jsonl")))]
    rounds = sorted({event["round"] for event in server if event["event"] == "round-end"})
    phases = {}

    def add(name, seconds):
        phases.setdefault(name, []).append(seconds)

    for r in rounds[1:] if len(rounds) > 1 else rounds:
        events = [event for event in server if event["round"] == r]

        def at(name, kind=None):
            for event in events:
                if event["event"] == name and (kind is None or event.get("type") == kind):
                    return event["t"]
            return None

        start, end = at("round-start"), at("round-end")
        add("round", end - start)
        previous = start
        for kind, done in (("train", at("aggregate-train-end")), ("evaluate", end)):
            pushed = at("push-end", kind)
            complete = at("replies-complete", kind)
            add(f"{kind}: ServerApp configures and pushes the messages", pushed - previous)
            # Each client's instruction of this half: the one of this type whose reply was pushed
            # between the app's push and its last reply (a client's events, split at each poll).
            last = None
            started = at("push-start", kind)
            for events_of_client in clients:
                instructions, current = [], None
                for event in events_of_client:
                    if event["event"] == "poll":
                        current = {}
                        instructions.append(current)
                    # A confirmation sent in the background (the client goes on meanwhile) is off the path.
                    if current is not None and event.get("type") == kind and not event.get("background"):
                        current.setdefault(event["event"], event)
                for times in instructions:
                    if "pushed" in times and started <= times["pushed"]["t"] <= complete + 0.001:
                        if last is None or times["pushed"]["t"] > last["pushed"]["t"]:
                            last = times
            if last is not None:
                steps = [("poll", "waiting for the client's poll"), ("message", "PullMessages"),
                         ("objects", "pulling the objects"), ("confirmed", "confirming"), ("inflated", "rebuilding the records"),
                         ("applied", "setting the arrays into the model"),
                         ("done", "training" if kind == "train" else "evaluating"),
                         ("packed", "packing the reply (arrays out of the model, objects)"), ("pushed", "pushing the reply")]
                t = pushed
                for key, label in steps:
                    if key in last:
                        # A poll sent before the push ended counts from the push's end.
                        add(f"{kind}: client: {label}", max(0.0, last[key]["t"] - t))
                        t = max(t, last[key]["t"])
                add(f"{kind}: ServerApp notices and pulls the last reply", complete - t)
            else:
                add(f"{kind}: clients (pull, work, push; not profiled)", complete - pushed)
            if kind == "train":
                add("train: ServerApp aggregates (FedAvg)", done - complete)
            else:
                add("evaluate: ServerApp aggregates the metrics", done - complete)
            previous = done

    markdown = "--markdown" in sys.argv
    if markdown:
        print("| phase | seconds (mean) | share of the round |")
        print("|---|---:|---:|")
    mean_round = statistics.mean(phases["round"])
    for name, values in phases.items():
        mean = statistics.mean(values)
        if markdown:
            print(f"| {name} | {mean:.3f} | {100 * mean / mean_round:.1f} % |")
        else:
            print(f"{name:70s} {mean:7.3f} s  {100 * mean / mean_round:5.1f} %")


if __name__ == "__main__":
    main()
