"""Chapter 8 of the book ("Sequence Classification") as printed, with the import changed to
`opencoreml.turicreate` and the GestureIt recordings (read by the book's helper
`activity_detector_utils.sframe_from_folder`, not reproduced) swapped for seglearn's smartwatch
recordings as CSV files (Scripts/make-watch-data.sh): sessionId, activity and six motion columns.

    python book_ch8.py watch-train.csv watch-test.csv [WORK_FOLDER]
"""

import os
import sys

import opencoreml.turicreate as tc

work = sys.argv[3] if len(sys.argv) > 3 else "."


def sframe_from_csv(path):
    sf = tc.SFrame.read_csv(path, verbose=False)
    return sf.rename({"session": "sessionId", "exercise": "activity", "ax": "accelX", "ay": "accelY", "az": "accelZ",
                      "wx": "rotX", "wy": "rotY", "wz": "rotZ"})


train_sf = sframe_from_csv(sys.argv[1])
test_sf = sframe_from_csv(sys.argv[2])
print(train_sf.head())
# The book holds out validation recordings; here they come from the training sessions.
train_sf, valid_sf = tc.activity_classifier.util.random_split_by_session(train_sf, session_id='sessionId', fraction=0.9, seed=0)

# 1
bad_session_1 = test_sf[21350]["sessionId"]
bad_session_2 = test_sf[22250]["sessionId"]
# 2 (the book removes two bad test sessions; the smartwatch test set keeps them)
print(len(test_sf.filter_by([bad_session_1, bad_session_2], column_name='sessionId', exclude=True)))

train_sf = train_sf.filter_by(["rest_it"], 'activity', exclude=True)
test_sf = test_sf.filter_by(["rest_it"], 'activity', exclude=True)
valid_sf = valid_sf.filter_by(["rest_it"], 'activity', exclude=True)

train_sf.save(os.path.join(work, 'cleaned_train_sframe'))
test_sf.save(os.path.join(work, 'cleaned_test_sframe'))
valid_sf.save(os.path.join(work, 'cleaned_valid_sframe'))
train_sf = tc.SFrame(os.path.join(work, "cleaned_train_sframe"))
valid_sf = tc.SFrame(os.path.join(work, "cleaned_valid_sframe"))
test_sf = tc.SFrame(os.path.join(work, "cleaned_test_sframe"))

train, valid = tc.activity_classifier.util.random_split_by_session(train_sf, session_id='sessionId', fraction=0.9)

model = tc.activity_classifier.create(
    dataset=train_sf, session_id='sessionId', target='activity',
    features=["rotX", "rotY", "rotZ", "accelX", "accelY", "accelZ"],
    prediction_window=20, validation_set=valid_sf, max_iterations=20)

metrics = model.evaluate(test_sf)
print(metrics['accuracy'])
print(metrics)

model.export_coreml(os.path.join(work, "GestureClassifier.mlmodel"))
model.save(os.path.join(work, "GestureClassifier"))
