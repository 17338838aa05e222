#!/usr/bin/env python3
"""The PyTorch anchor of the GPU device check: ResNet-50 training steps
(torchvision's resnet50, SGD with momentum, cross-entropy on random
224x224 images) on the same GPU in the same run as FlowLens's own GPU
benchmarks, so FlowLens's figures can be read against a library everyone
knows. Prints one line per configuration:

    pytorch_resnet50_train: fp32 channels_last batch 64: 1234.5 images/s (median of 5 x 10 steps)

Configurations: fp32 (TF32 off), tf32, and AMP (bfloat16 autocast), all
channels_last. Exits 0 with a 'skipped' line when torch, torchvision or a
GPU is missing, so the device check goes on.
"""
import argparse
import statistics
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=10, help="timed steps per repetition")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    try:
        import torch
        import torchvision
    except ImportError as e:
        print(f"pytorch_resnet50_train: skipped ({e})")
        return 0
    if not torch.cuda.is_available():
        print("pytorch_resnet50_train: skipped (torch sees no GPU)")
        return 0

    device = torch.device("cuda")
    print(f"pytorch: torch {torch.__version__}, torchvision {torchvision.__version__}, "
          f"cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name(0)}")
    torch.backends.cudnn.benchmark = True  # algorithm choice cached per shape, as FlowLens does
    for name, tf32, amp in (("fp32", False, False), ("tf32", True, False), ("amp-bf16", True, True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
        torch.manual_seed(0)
        model = torchvision.models.resnet50(num_classes=1000).to(device, memory_format=torch.channels_last)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = torch.nn.CrossEntropyLoss()
        images = torch.randn(args.batch, 3, 224, 224, device=device).to(memory_format=torch.channels_last)
        labels = torch.randint(0, 1000, (args.batch,), device=device)

        def step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
                loss = loss_fn(model(images), labels)
            loss.backward()
            opt.step()

        for _ in range(args.warmup):
            step()
        torch.cuda.synchronize()
        rates = []
        for _ in range(args.reps):
            start = time.perf_counter()
            for _ in range(args.steps):
                step()
            torch.cuda.synchronize()
            rates.append(args.batch * args.steps / (time.perf_counter() - start))
        print(f"pytorch_resnet50_train: {name} channels_last batch {args.batch}: "
              f"{statistics.median(rates):.1f} images/s (median of {args.reps} x {args.steps} steps)")
        sys.stdout.flush()
        del model, opt
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
