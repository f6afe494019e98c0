"""Chapter 5 of the book ("Digging Deeper Into Turi Create") as printed, with the import changed to
`opencoreml.turicreate` and the snacks swapped for the folders given on the command line (one
sub-folder per class; the validation folder may be the test folder):

    python book_ch5.py TRAIN_FOLDER TEST_FOLDER VAL_FOLDER [WORK_FOLDER]

'squeezenet_v1.1' is replaced by OpenCoreML's built-in extractor (its weights cannot be obtained
here), with a ModelSubstitutionWarning; the book's `features['__image_features__']` typo reads
`features=['__image_features__']`; `np.int` (gone from numpy) reads `int`; seaborn is optional."""

import os
import sys

import numpy as np

import opencoreml.turicreate as tc

train_folder, test_folder, val_folder = sys.argv[1:4]
work = sys.argv[4] if len(sys.argv) > 4 else "."
here = lambda name: os.path.join(work, name)  # noqa: E731

train_data = tc.image_analysis.load_images(train_folder, with_path=True)
print(len(train_data))
test_data = tc.image_analysis.load_images(test_folder, with_path=True)
print(len(test_data))

train_data["label"] = train_data["path"].apply(lambda path: os.path.basename(os.path.split(path)[0]))
test_data["label"] = test_data["path"].apply(lambda path: os.path.basename(os.path.split(path)[0]))
train_data["label"].value_counts().print_rows(num_rows=20)
test_data["label"].value_counts().print_rows(num_rows=20)

model = tc.image_classifier.create(train_data, target="label", model="squeezenet_v1.1", verbose=True, max_iterations=100)
model.save(here("HealthySnacks.model"))
model = tc.load_model(here("HealthySnacks.model"))
metrics = model.evaluate(test_data)
print("Accuracy: ", metrics["accuracy"])
print("Precision: ", metrics["precision"])
print("Recall: ", metrics["recall"])
print(model.predict(test_data))
output = model.classify(test_data)
print(output)
imgs_with_pred = test_data.add_columns(output)
print("explore:", imgs_with_pred.explore())
predictions = model.predict(test_data, output_type='probability_vector')
print("Probabilities for 2nd image", predictions[1])
labels = test_data["label"].unique().sort()
preds = tc.SArray(predictions[1])
print(tc.SFrame({'preds': preds, 'labels': labels}).sort([('preds', False)]))

model200 = tc.image_classifier.create(train_data, target="label", model="squeezenet_v1.1", verbose=True, max_iterations=200)
model200.save(here("HealthySnacks_200.model"))
model200 = tc.load_model(here("HealthySnacks_200.model"))
metrics200 = model200.evaluate(test_data)
print("Accuracy: ", metrics200["accuracy"])
print("Precision: ", metrics200["precision"])
print("Recall: ", metrics200["recall"])
print("Confusion Matrix:\n", metrics["confusion_matrix"])


def compute_confusion_matrix(metrics, labels):
    num_labels = len(labels)
    label_to_index = {l: i for i, l in enumerate(labels)}
    conf = np.zeros((num_labels, num_labels), dtype=int)
    for row in metrics["confusion_matrix"]:
        true_label = label_to_index[row["target_label"]]
        pred_label = label_to_index[row["predicted_label"]]
        conf[true_label, pred_label] = row["count"]
    return conf


conf = compute_confusion_matrix(metrics200, labels)
print(conf)
for i, label in enumerate(labels):
    correct = conf[i, i]
    images_per_class = conf[i].sum()
    print("%10s %1f%%" % (label, 100. * correct / images_per_class))

val_data = tc.image_analysis.load_images(val_folder, with_path=True)
val_data["label"] = val_data["path"].apply(lambda path: os.path.basename(os.path.split(path)[0]))
print(len(val_data))

from opencoreml.turicreate.toolkits import _pre_trained_models  # noqa: E402
from opencoreml.turicreate.toolkits import _image_feature_extractor  # noqa: E402

ptModel = _pre_trained_models.MODELS["squeezenet_v1.1"]()
feature_extractor = _image_feature_extractor.MXFeatureExtractor(ptModel)
train_features = feature_extractor.extract_features(train_data, "image", verbose=True)
extracted_train_features = tc.SFrame({"label": train_data["label"], '__image_features__': train_features})
extracted_train_features.save(here("extracted_train_features.sframe"))
# Run this tomorrow or next week
extracted_train_features = tc.SFrame(here("extracted_train_features.sframe"))
print(extracted_train_features.head())
print(extracted_train_features[0]["__image_features__"][:8], "...")

val_features = feature_extractor.extract_features(val_data, "image", verbose=True)
extracted_val_features = tc.SFrame({"label": val_data["label"], '__image_features__': val_features})
extracted_val_features.save(here("extracted_val_features.sframe"))

lr_model = tc.logistic_classifier.create(extracted_train_features, features=['__image_features__'], target="label",
                                         validation_set=extracted_val_features, max_iterations=200, seed=None, verbose=True,
                                         l2_penalty=10.0, l1_penalty=0.0, convergence_threshold=1e-8)

from opencoreml.turicreate.toolkits.image_classifier import ImageClassifier  # noqa: E402

state = {
    'classifier': lr_model,
    'model': ptModel.name,
    'max_iterations': lr_model.max_iterations,
    'feature_extractor': feature_extractor,
    'input_image_shape': ptModel.input_image_shape,
    'target': lr_model.target,
    'feature': "image",
    'num_features': 1,
    'num_classes': lr_model.num_classes,
    'classes': lr_model.classes,
    'num_examples': lr_model.num_examples,
    'training_time': lr_model.training_time,
    'training_loss': lr_model.training_loss,
}
model = ImageClassifier(state)
model.save(here("HealthySnacks_regularized.model"))
model.export_coreml(here("HealthySnacks_regularized.mlmodel"))
print(model.classifier)
print("regularized accuracy:", model.evaluate(test_data)["accuracy"])
no_reg_model = tc.load_model(here("HealthySnacks.model"))
print(no_reg_model.classifier)
