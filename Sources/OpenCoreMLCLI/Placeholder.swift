import OpenCoreML
