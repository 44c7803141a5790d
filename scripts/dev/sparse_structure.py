"""Where the nonzeros of a model's sparse weight tensors fall: for each tensor stored sparse
(TFLite sparsity, CSR over input channels), its density, how many aligned groups of 4 output
channels have the same input channels, and the share of input channels that neighbouring
output channels have in common (about the density when the nonzeros fall by chance).
docs/benchmarks.md, "Sparsity and structure in every model", quotes it for pose_detection.

Usage: python3 scripts/dev/sparse_structure.py MODEL.tflite  (needs PyPI's `tflite` package)
"""
import sys

import tflite


def index_vector(kind, table):
    vector = {1: tflite.Int32Vector, 2: tflite.Uint16Vector, 3: tflite.Uint8Vector}[kind]()
    vector.Init(table.Bytes, table.Pos)
    return [vector.Values(i) for i in range(vector.ValuesLength())]


def main(path):
    with open(path, "rb") as f:
        model = tflite.Model.GetRootAsModel(f.read(), 0)
    graph = model.Subgraphs(0)
    for t in range(graph.TensorsLength()):
        tensor = graph.Tensors(t)
        sparsity = tensor.Sparsity()
        if sparsity is None:
            continue
        shape = [tensor.Shape(i) for i in range(tensor.ShapeLength())]
        if sparsity.BlockMapLength() or sparsity.DimMetadataLength() != len(shape):
            print(f"{tensor.Name().decode()}: blocks or another layout, not read here")
            continue
        inner = sparsity.DimMetadata(len(shape) - 1)
        segments = index_vector(inner.ArraySegmentsType(), inner.ArraySegments())
        indices = index_vector(inner.ArrayIndicesType(), inner.ArrayIndices())
        outputs, inputs = shape[0], shape[-1]
        rows = [set(indices[segments[o]:segments[o + 1]]) for o in range(outputs)]
        groups = range(0, outputs - outputs % 4, 4)
        same = sum(1 for o in groups if rows[o] == rows[o + 1] == rows[o + 2] == rows[o + 3])
        shared = [len(rows[o] & rows[o + 1]) / max(1, len(rows[o])) for o in range(outputs - 1)]
        print(f"{shape}: density {len(indices) / (outputs * inputs):.3f}, groups of 4 alike {same}/{len(groups)}, "
              f"neighbours share {min(shared):.2f}-{max(shared):.2f} (mean {sum(shared) / len(shared):.2f})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
