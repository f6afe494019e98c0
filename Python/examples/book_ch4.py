"""Chapter 4 of the book ("Getting Started With Python & Turi Create") as printed, with
`import turicreate as tc` changed to `import opencoreml.turicreate as tc` and the snacks swapped for
the folders given on the command line (one sub-folder per class, e.g. the seeds' hand photos):

    python book_ch4.py TRAIN_FOLDER TEST_FOLDER [WORK_FOLDER]

Plots are skipped when matplotlib is not installed."""

import os
import sys

import opencoreml.turicreate as tc

train_folder, test_folder = sys.argv[1], sys.argv[2]
work = sys.argv[3] if len(sys.argv) > 3 else "."
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None

train_data = tc.image_analysis.load_images(train_folder, with_path=True)
print(len(train_data))
print(train_data.head())
print("explore:", train_data.explore())
if plt is not None:
    plt.imshow(train_data[0]["image"].pixel_data)
    plt.savefig(os.path.join(work, "first-image.png"))

# Grab the full path of the first training example
path = train_data[0]["path"]
print(path)
# Find the class label
print(os.path.basename(os.path.split(path)[0]))

train_data["label"] = train_data["path"].apply(lambda path: os.path.basename(os.path.split(path)[0]))
print(train_data["label"].summary())
train_data["label"].value_counts().print_rows(num_rows=20)

model = tc.image_classifier.create(train_data, target="label", model="VisionFeaturePrint_Screen", verbose=True, max_iterations=50)
model.save(os.path.join(work, "HealthySnacks.model"))
model = tc.load_model(os.path.join(work, "HealthySnacks.model"))

test_data = tc.image_analysis.load_images(test_folder, with_path=True)
test_data["label"] = test_data["path"].apply(lambda path: os.path.basename(os.path.split(path)[0]))
print(len(test_data))

metrics = model.evaluate(test_data)
print("Accuracy: ", metrics["accuracy"])
print("Precision: ", metrics["precision"])
print("Recall: ", metrics["recall"])
print("Confusion Matrix:\n", metrics["confusion_matrix"])

model.save(os.path.join(work, "HealthySnacks.model"))
model.export_coreml(os.path.join(work, "HealthySnacks.mlmodel"))
