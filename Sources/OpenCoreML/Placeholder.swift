import CoreMLSpec
