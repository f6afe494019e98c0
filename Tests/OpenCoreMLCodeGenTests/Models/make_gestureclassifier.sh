#!/usr/bin/env bash
# Builds GestureClassifier.mlmodel for the code-generation tests: an activity classifier with the
# interface of the book's GestureIt model (chapter 8; Turi Create 5's export): `features` [1, 20, 6]
# (rotation rate x y z, user acceleration x y z at 25 Hz), optional `hiddenIn` / `cellIn`, outputs
# `activity`, `activityProbability`, `hiddenOut`, `cellOut`. It is trained by
# `opencoreml activity-classifier train` on made-up motion that awk writes (no Python):
#
#   chop_it   a strong up-and-down acceleration (y) at 2 Hz
#   drive_it  a slow rotation about z at 1 Hz
#   shake_it  a fast side-to-side acceleration (x) at 5 Hz
#   rest_it   small noise
#
# each with noise of ±0.15 on every axis. The test (BookChapter8GestureItTests.swift) makes the same
# signals in Swift.
#
#   Tests/OpenCoreMLCodeGenTests/Models/make_gestureclassifier.sh    # from the repository root
set -euo pipefail
cd "$(dirname "$0")/../../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

awk -v seed=7 'BEGIN {
    srand(seed); pi = 3.141592653589793
    split("chop_it drive_it shake_it rest_it", names, " ")
    print "session,t,rotX,rotY,rotZ,accX,accY,accZ,activity"
    for (s = 0; s < 80; s++) {
        first = int(rand() * 4) + 1; second = int(rand() * 4) + 1; change = 100 + int(rand() * 200); phase = rand() * 2 * pi
        for (t = 0; t < 400; t++) {
            g = (t < change) ? first : second; x = 2 * pi * t / 25 + phase
            rx = 0; ry = 0; rz = 0; ax = 0; ay = 0; az = 0
            if (g == 1) { ay = 1.5 * sin(2 * x); rx = 0.5 * cos(2 * x) }
            if (g == 2) { rz = 2 * sin(x); ax = 0.3 * cos(x) }
            if (g == 3) { ax = 1.2 * sin(5 * x); ry = 0.4 * sin(5 * x) }
            printf "g%02d,%.2f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s\n", s, t / 25, \
                rx + (rand() - 0.5) * 0.3, ry + (rand() - 0.5) * 0.3, rz + (rand() - 0.5) * 0.3, \
                ax + (rand() - 0.5) * 0.3, ay + (rand() - 0.5) * 0.3, az + (rand() - 0.5) * 0.3, names[g]
        }
    }
}' > "$work/gestures.csv"

swift run -c release opencoreml activity-classifier train "$work/gestures.csv" \
    --features rotX,rotY,rotZ,accX,accY,accZ --label-column activity --session-column session --time-column t \
    --prediction-window 20 --max-iterations 25 --batch-size 8 --seed 1 \
    --output Tests/OpenCoreMLCodeGenTests/Models/GestureClassifier.mlmodel
ls -l Tests/OpenCoreMLCodeGenTests/Models/GestureClassifier.mlmodel
