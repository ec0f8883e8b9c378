#!/usr/bin/env python3
"""Drives the CHIP SDK Python controller (home-assistant-chip-core 2025.7.0) against a Matter
device: commission it from a setup code, read BasicInformation.VendorName, toggle OnOff, let a
second fabric join through an enhanced commissioning window, then remove the fabrics.

Prints one JSON object per step on stdout ({"step": ..., "ok": ..., "ms": ...}) and a final
{"result": "ok"|"failed", ...}. Exit status 0 only when every step succeeded.

The SDK hard-codes /data/chip_*.ini and /tmp/chip_kvs: run this inside a private mount
namespace with private folders bound over /data and /tmp (scripts/chip-controller does).

usage: chip-controller.py --storage DIR --paa DIR (--code CODE | --reuse) [--second-fabric] [--keep] [--final-toggle] [--dim] [--results FILE]
"""
import argparse
import asyncio
import json
import os
import sys
import time


RESULTS = None


def emit(**fields):
    """One JSON object per line: on stdout, and in --results (the SDK's own logging shares
    stdout and can split lines, so readers should prefer the file)."""
    line = json.dumps(fields)
    print(line, flush=True)
    if RESULTS:
        with open(RESULTS, "a") as f:
            f.write(line + "\n")


async def step(name, coro):
    start = time.monotonic()
    try:
        value = await coro
    except Exception as e:  # the SDK raises ChipStackError and friends
        emit(step=name, ok=False, ms=round((time.monotonic() - start) * 1000, 1), error=f"{type(e).__name__}: {e}")
        raise
    emit(step=name, ok=True, ms=round((time.monotonic() - start) * 1000, 1))
    return value


async def dim(ctrl, node, Clusters):
    """Level Control as the SDK's own cluster objects decode it: every attribute of endpoint 1's
    cluster, then MoveToLevelWithOnOff to 77 (on if that raised it), to MinLevel (turns it off),
    MoveToLevel while off with and without ExecuteIfOff in the override, and level 255 refused."""
    LC = Clusters.LevelControl

    async def read_level():
        r = await ctrl.ReadAttribute(node, [(1, LC.Attributes.CurrentLevel), (1, Clusters.OnOff.Attributes.OnOff)])
        return r[1][LC][LC.Attributes.CurrentLevel], r[1][Clusters.OnOff][Clusters.OnOff.Attributes.OnOff]

    from chip.clusters.Types import NullValue

    def plain(v):
        return None if v is NullValue else v
    # The SDK's cluster object: each attribute decoded with the SDK's own type for it.
    r = await step("read-level-control", ctrl.ReadAttribute(node, [(1, LC)], returnClusterObject=True))
    cluster = r[1][LC]
    emit(step="level-control-attributes", ok=True, featureMap=cluster.featureMap, minLevel=cluster.minLevel,
         maxLevel=cluster.maxLevel, currentLevel=plain(cluster.currentLevel), onLevel=plain(cluster.onLevel),
         options=int(cluster.options), remainingTime=cluster.remainingTime, clusterRevision=cluster.clusterRevision,
         startUpCurrentLevel=plain(cluster.startUpCurrentLevel), onOffTransitionTime=cluster.onOffTransitionTime,
         acceptedCommandList=list(cluster.acceptedCommandList), generatedCommandList=list(cluster.generatedCommandList),
         attributeList=list(cluster.attributeList))
    d = await step("read-descriptor", ctrl.ReadAttribute(node, [(1, Clusters.Descriptor.Attributes.ServerList),
                                                              (1, Clusters.Descriptor.Attributes.DeviceTypeList)]))
    desc = d[1][Clusters.Descriptor]
    emit(step="descriptor", ok=True, serverList=list(desc[Clusters.Descriptor.Attributes.ServerList]),
         deviceTypes=[t.deviceType for t in desc[Clusters.Descriptor.Attributes.DeviceTypeList]])

    def move(level, cmd=LC.Commands.MoveToLevelWithOnOff, mask=0, override=0):
        return ctrl.SendCommand(node, 1, cmd(level=level, transitionTime=0, optionsMask=mask, optionsOverride=override))
    level0, on0 = await step("read-level-before", read_level())
    await step("move-to-level-with-on-off-77", move(77))
    level, on = await step("read-level-77", read_level())
    # Any level above MinLevel turns the light on, lower than before too (Matter Application
    # Cluster 1.6.4, as the SDK's own light does).
    emit(step="level-77", ok=level == 77 and on is True, level=level, on=on, before=level0,
         onBefore=on0)
    await step("move-to-level-with-on-off-min", move(1))
    level, on = await step("read-level-min", read_level())
    emit(step="level-min", ok=level == 1 and on is False, level=level, on=on)
    await step("move-to-level-while-off", move(150, LC.Commands.MoveToLevel))
    level, _ = await step("read-level-ignored", read_level())
    emit(step="level-ignored-while-off", ok=level == 1, level=level)
    await step("move-to-level-execute-if-off", move(150, LC.Commands.MoveToLevel, 1, 1))
    level, on = await step("read-level-execute-if-off", read_level())
    emit(step="level-execute-if-off", ok=level == 150 and on is False, level=level, on=on)
    try:
        await move(255)
        emit(step="level-255", ok=False, error="accepted")
    except Exception as e:  # chip.interaction_model.InteractionModelError
        status = getattr(e, "status", None)
        emit(step="level-255", ok=True, status=str(status), error=f"{type(e).__name__}: {e}")
    await step("move-to-level-with-on-off-200", move(200))
    level, on = await step("read-level-200", read_level())
    # Up from 150: the light turns on.
    emit(step="level-200", ok=level == 200 and on is True, level=level, on=on)


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--storage", required=True)
    p.add_argument("--paa", required=True)
    p.add_argument("--code", help="commission from this QR or manual code")
    p.add_argument("--reuse", action="store_true",
                   help="use the fabric stored in --storage by an earlier --keep run: no commissioning")
    p.add_argument("--node-id", type=int, default=0x1234)
    p.add_argument("--second-fabric", action="store_true")
    p.add_argument("--window-discriminator", type=int, default=2222,
                   help="discriminator of the enhanced window the first controller opens (a manual code carries its top 4 bits)")
    p.add_argument("--keep", action="store_true", help="do not remove the fabrics at the end")
    p.add_argument("--final-toggle", action="store_true",
                   help="toggle once more at the end, so OnOff ends changed (what another fabric's subscriber should see)")
    p.add_argument("--dim", action="store_true",
                   help="Level Control: read the whole cluster, MoveToLevelWithOnOff up and to MinLevel, ExecuteIfOff, a 255 level")
    p.add_argument("--bdx-send", type=int, metavar="N",
                   help="after commissioning, serve N bytes (byte i = (7i+3) mod 256) to a BDX ReceiveInit the device opens "
                        "(the SDK as a BDX sender, our virtual device's --fetch as the receiver)")
    p.add_argument("--results", help="also append the JSON lines to this file")
    a = p.parse_args()
    global RESULTS
    RESULTS = a.results

    import chip.CertificateAuthority
    import chip.clusters as Clusters
    import chip.logging
    import chip.native
    from chip.ChipStack import ChipStack
    from chip.ChipDeviceCtrl import CommissioningParameters  # noqa: F401

    os.makedirs(a.storage, exist_ok=True)
    chip.native.Init()
    stack = ChipStack(persistentStoragePath=os.path.join(a.storage, "chip-repl.json"))
    cam = chip.CertificateAuthority.CertificateAuthorityManager(chipStack=stack,
                                                                persistentStorage=stack.GetStorageManager())
    if a.reuse:
        cam.LoadAuthoritiesFromStorage()
        admin = cam.activeCaList[0].adminList[0]
    else:
        admin = cam.NewCertificateAuthority().NewFabricAdmin(vendorId=0xFFF1, fabricId=1)
    ctrl = admin.NewController(nodeId=112233, paaTrustStorePath=a.paa)
    node = a.node_id
    failed = None
    try:
        if not a.reuse:
            await step("commission", ctrl.CommissionWithCode(a.code, node))
        r = await step("read-vendor-name", ctrl.ReadAttribute(node, [(0, Clusters.BasicInformation.Attributes.VendorName)]))
        vendor = r[0][Clusters.BasicInformation][Clusters.BasicInformation.Attributes.VendorName]
        emit(step="vendor-name", ok=True, value=vendor)

        async def read_on_off():
            r = await ctrl.ReadAttribute(node, [(1, Clusters.OnOff.Attributes.OnOff)])
            return r[1][Clusters.OnOff][Clusters.OnOff.Attributes.OnOff]
        before = await step("read-on-off", read_on_off())
        await step("toggle", ctrl.SendCommand(node, 1, Clusters.OnOff.Commands.Toggle()))
        after = await step("read-on-off-after-toggle", read_on_off())
        emit(step="on-off", ok=before != after, before=before, after=after)
        if before == after:
            raise RuntimeError("Toggle did not change OnOff")

        # A subscription to OnOff: the device must report the next toggle on its own.
        sub = await step("subscribe-on-off", ctrl.ReadAttribute(node, [(1, Clusters.OnOff.Attributes.OnOff)],
                                                                reportInterval=(0, 10)))
        loop = asyncio.get_running_loop()
        reported = loop.create_future()

        def on_change(path, transaction):
            value = transaction.GetAttribute(path)
            if not reported.done():
                loop.call_soon_threadsafe(lambda: reported.done() or reported.set_result(value))
        sub.SetAttributeUpdateCallback(on_change)
        await ctrl.SendCommand(node, 1, Clusters.OnOff.Commands.Toggle())
        value = await step("subscription-report", asyncio.wait_for(reported, timeout=10))
        emit(step="reported-on-off", ok=value == before, value=value)
        sub.Shutdown()
        if value != before:
            raise RuntimeError(f"the subscription reported OnOff={value}, expected {before}")

        if a.dim:
            await dim(ctrl, node, Clusters)

        if a.bdx_send is not None:
            data = bytes((7 * i + 3) % 256 for i in range(a.bdx_send))
            pending = ctrl.TestOnlyPrepareToSendBdxData(data)
            emit(step="bdx-ready", ok=True)
            transfer = await step("bdx-receive-init", asyncio.wait_for(pending, timeout=60))
            init = transfer.init_message
            emit(step="bdx-init", ok=True, designator=init.FileDesignator.decode(errors="replace"),
                 maxBlockSize=init.MaxBlockSize, control=init.TransferControlFlags, startOffset=init.StartOffset,
                 length=init.Length)
            # The binding's accept_and_send_data cannot work in home-assistant-chip-core 2025.7.0:
            # it hands a bytearray to c_char_p, and the native function's argtypes want a uint8
            # pointer. The same native call, with the argument it declares.
            async def send():
                import builtins
                import ctypes
                from chip.bdx.Bdx import AsyncTransferCompletedTransaction
                from chip.native import GetLibraryHandle
                loop = asyncio.get_running_loop()
                sent = loop.create_future()
                tx = AsyncTransferCompletedTransaction(future=sent, event_loop=loop)
                ctypes.pythonapi.Py_IncRef(ctypes.py_object(tx))
                buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
                handle = GetLibraryHandle()
                builtins.chipStack.Call(lambda: handle.pychip_Bdx_AcceptTransferAndSendData(
                    transfer._bdx_transfer, buf, len(data), ctypes.py_object(tx))).raise_on_error()
                await asyncio.wait_for(sent, timeout=60)
            await step("bdx-send", send())

        if a.final_toggle:
            await step("final-toggle", ctrl.SendCommand(node, 1, Clusters.OnOff.Commands.Toggle()))
            final = await step("read-on-off-final", read_on_off())
            emit(step="final-on-off", ok=final != before, before=before, value=final)

        ctrl2 = None
        if a.second_fabric:
            params = await step("open-commissioning-window",
                                ctrl.OpenCommissioningWindow(node, timeout=180, iteration=1000, discriminator=a.window_discriminator,
                                                            option=1))
            ca2 = cam.NewCertificateAuthority()
            admin2 = ca2.NewFabricAdmin(vendorId=0xFFF1, fabricId=2)
            ctrl2 = admin2.NewController(nodeId=223344, paaTrustStorePath=a.paa)
            await step("commission-second-fabric", ctrl2.CommissionWithCode(params.setupManualCode, node + 1))
            r = await step("read-fabrics", ctrl2.ReadAttribute(
                node + 1, [(0, Clusters.OperationalCredentials.Attributes.CommissionedFabrics)]))
            count = r[0][Clusters.OperationalCredentials][Clusters.OperationalCredentials.Attributes.CommissionedFabrics]
            emit(step="commissioned-fabrics", ok=count == 2, value=count)
            if count != 2:
                raise RuntimeError(f"CommissionedFabrics is {count}, expected 2")

        if not a.keep:
            for c, n, name in ([(ctrl2, node + 1, "remove-second-fabric")] if ctrl2 else []) + [(ctrl, node, "remove-fabric")]:
                async def remove(c=c, n=n):
                    r = await c.ReadAttribute(n, [(0, Clusters.OperationalCredentials.Attributes.CurrentFabricIndex)],
                                              fabricFiltered=True)
                    index = r[0][Clusters.OperationalCredentials][Clusters.OperationalCredentials.Attributes.CurrentFabricIndex]
                    resp = await c.SendCommand(n, 0, Clusters.OperationalCredentials.Commands.RemoveFabric(fabricIndex=index))
                    if resp.statusCode != 0:
                        raise RuntimeError(f"RemoveFabric answered {resp.statusCode}")
                await step(name, remove())
    except Exception as e:
        failed = f"{type(e).__name__}: {e}"
    finally:
        try:
            cam.Shutdown()
            stack.Shutdown()
        except Exception:
            pass
    if failed:
        emit(result="failed", error=failed)
        return 1
    emit(result="ok")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
