"""The server side of OpenCoreML's federated training: a Flower app running FedAvg over Swift clients."""
