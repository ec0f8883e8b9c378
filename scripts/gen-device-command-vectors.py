#!/usr/bin/env python3
"""Writes testvectors/matter-server/device_command_payloads.json: device_command payloads as the
Matter Server client sends them, with the command TLV python-matter-server's SDK sends for each,
and command responses as a device sends them, with the JSON the server answers with.

Payload: matter_server's dataclass_to_dict of the command object, through its json_dumps (bytes
become base64), which is what Home Assistant sends. TLV: the server's dataclass_from_dict of that
payload, then the CHIP SDK's ToTLV (chip.clusters, home-assistant-chip-clusters 2025.7.0).
Responses: the SDK's ToTLV of a response object, and dataclass_to_dict of the same object.
The commands are those Home Assistant's Matter integration sends, with the fields it passes.
Run with the .peers/ohf-client venv: .peers/ohf-client/bin/python scripts/gen-device-command-vectors.py
"""
import json
import pathlib

from chip import ChipUtility  # noqa: F401  (chip.clusters needs it loaded first)
from chip.clusters import Objects as C
from chip.clusters.Types import NullValue
from matter_server.common.helpers.json import json_dumps
from matter_server.common.helpers.util import dataclass_from_dict, dataclass_to_dict

DL, TS, EV, TH = C.DoorLock, C.TimeSynchronization, C.EnergyEvse, C.Thermostat

COMMANDS = [
    C.OnOff.Commands.On(),
    C.LevelControl.Commands.MoveToLevelWithOnOff(level=128, transitionTime=10),
    C.ColorControl.Commands.MoveToColor(colorX=21000, colorY=21500, transitionTime=0, optionsMask=1, optionsOverride=1),
    C.ColorControl.Commands.MoveToColorTemperature(colorTemperatureMireds=370, transitionTime=0, optionsMask=1, optionsOverride=1),
    DL.Commands.LockDoor(PINCode=b"1234"),
    DL.Commands.UnboltDoor(PINCode=None),
    DL.Commands.SetUser(operationType=0, userIndex=3, userName="Guest", userUniqueID=NullValue, userStatus=1,
                        userType=0, credentialRule=0),
    DL.Commands.SetCredential(operationType=0, credential=DL.Structs.CredentialStruct(credentialType=1, credentialIndex=2),
                              credentialData=b"123456", userIndex=NullValue, userStatus=NullValue, userType=NullValue),
    DL.Commands.GetCredentialStatus(credential=DL.Structs.CredentialStruct(credentialType=1, credentialIndex=2)),
    DL.Commands.ClearCredential(credential=NullValue),
    DL.Commands.ClearCredential(credential=DL.Structs.CredentialStruct(credentialType=1, credentialIndex=0xFFFE)),
    DL.Commands.SetWeekDaySchedule(weekDayIndex=1, userIndex=3, daysMask=0x3E, startHour=8, startMinute=0,
                                   endHour=17, endMinute=30),
    DL.Commands.ClearWeekDaySchedule(weekDayIndex=0xFE, userIndex=3),
    DL.Commands.SetYearDaySchedule(yearDayIndex=1, userIndex=3, localStartTime=1_764_547_200, localEndTime=1_767_225_600),
    DL.Commands.SetHolidaySchedule(holidayIndex=1, localStartTime=1_766_620_800, localEndTime=1_766_793_600, operatingMode=3),
    C.WindowCovering.Commands.GoToLiftPercentage(liftPercent100thsValue=2500),
    C.ClosureControl.Commands.MoveTo(position=1, latch=False),
    C.ClosureDimension.Commands.SetTarget(position=7500),
    TH.Commands.SetActivePresetRequest(presetHandle=b"\x01\x02"),
    TH.Commands.SetActivePresetRequest(presetHandle=NullValue),
    TH.Commands.SetWeeklySchedule(numberOfTransitionsForSequence=2, dayOfWeekForSequence=0x41, modeForSequence=1, transitions=[
        TH.Structs.WeeklyScheduleTransitionStruct(transitionTime=420, heatSetpoint=2100, coolSetpoint=NullValue),
        TH.Structs.WeeklyScheduleTransitionStruct(transitionTime=1320, heatSetpoint=-500, coolSetpoint=NullValue)]),
    TH.Commands.AtomicRequest(requestType=0, attributeRequests=[0x50], timeout=3000),
    C.FanControl.Commands.Step(direction=0, wrap=True),
    C.ModeSelect.Commands.ChangeToMode(newMode=2),
    C.RvcRunMode.Commands.ChangeToMode(newMode=1),
    C.LaundryWasherMode.Commands.ChangeToMode(newMode=3),
    C.RvcOperationalState.Commands.GoHome(),
    C.OperationalState.Commands.Pause(),
    C.ServiceArea.Commands.SelectAreas(newAreas=[1, 300, 70_000]),
    C.ServiceArea.Commands.SelectAreas(newAreas=[]),
    C.HepaFilterMonitoring.Commands.ResetCondition(),
    C.SmokeCoAlarm.Commands.SelfTestRequest(),
    C.BooleanStateConfiguration.Commands.SuppressAlarm(alarmsToSuppress=1),
    C.ValveConfigurationAndControl.Commands.Open(),
    C.ValveConfigurationAndControl.Commands.Open(targetLevel=50),
    C.WaterHeaterManagement.Commands.Boost(boostInfo=C.WaterHeaterManagement.Structs.WaterHeaterBoostInfoStruct(duration=3600)),
    C.WaterHeaterManagement.Commands.Boost(boostInfo=C.WaterHeaterManagement.Structs.WaterHeaterBoostInfoStruct(
        duration=1800, emergencyBoost=True, temporarySetpoint=6500)),
    EV.Commands.EnableCharging(chargingEnabledUntil=NullValue, minimumChargeCurrent=0, maximumChargeCurrent=0),
    EV.Commands.EnableCharging(chargingEnabledUntil=1_764_633_600, minimumChargeCurrent=6000, maximumChargeCurrent=32000),
    EV.Commands.SetTargets(chargingTargetSchedules=[EV.Structs.ChargingTargetScheduleStruct(dayOfWeekForSequence=0x1F, chargingTargets=[
        EV.Structs.ChargingTargetStruct(targetTimeMinutesPastMidnight=420, targetSoC=80),
        EV.Structs.ChargingTargetStruct(targetTimeMinutesPastMidnight=1200, addedEnergy=25_000_000)])]),
    C.TemperatureControl.Commands.SetTemperature(targetTemperatureLevel=2),
    C.TemperatureControl.Commands.SetTemperature(targetTemperature=-1850),
    C.MicrowaveOvenControl.Commands.SetCookingParameters(wattSettingIndex=3),
    C.MicrowaveOvenControl.Commands.SetCookingParameters(cookTime=90),
    TS.Commands.SetUTCTime(UTCTime=817_776_000_000_000, granularity=4),
    TS.Commands.SetTimeZone(timeZone=[TS.Structs.TimeZoneStruct(offset=3600, validAt=0, name="Europe/Amsterdam")]),
    TS.Commands.SetDSTOffset(DSTOffset=[TS.Structs.DSTOffsetStruct(offset=3600, validStarting=0, validUntil=NullValue)]),
    TS.Commands.SetTrustedTimeSource(trustedTimeSource=NullValue),
]

RESPONSES = [
    C.RvcOperationalState.Commands.OperationalCommandResponse(
        commandResponseState=C.RvcOperationalState.Structs.ErrorStateStruct(errorStateID=0)),
    C.OperationalState.Commands.OperationalCommandResponse(
        commandResponseState=C.OperationalState.Structs.ErrorStateStruct(errorStateID=2, errorStateLabel="jammed")),
    C.RvcRunMode.Commands.ChangeToModeResponse(status=0),
    C.RvcRunMode.Commands.ChangeToModeResponse(status=3, statusText="not docked"),
    C.ServiceArea.Commands.SelectAreasResponse(status=0, statusText=""),
    DL.Commands.SetCredentialResponse(status=0, userIndex=4, nextCredentialIndex=NullValue),
    DL.Commands.GetCredentialStatusResponse(credentialExists=True, userIndex=4, creatorFabricIndex=1,
                                            lastModifiedFabricIndex=1, nextCredentialIndex=3),
    DL.Commands.GetWeekDayScheduleResponse(weekDayIndex=1, userIndex=3, status=0x8B),
    TS.Commands.SetTimeZoneResponse(DSTOffsetRequired=True),
    TH.Commands.AtomicResponse(statusCode=0, attributeStatus=[C.Globals.Structs.AtomicAttributeStatusStruct(attributeID=0x50, statusCode=0)],
                               timeout=3000),
]


def to_json(obj):
    return json.loads(json_dumps(dataclass_to_dict(obj)))


def main():
    vectors = []
    for command in COMMANDS:
        payload = to_json(command)
        rebuilt = dataclass_from_dict(type(command), json.loads(json.dumps(payload)), allow_sdk_types=True)
        vectors.append({"id": f"command-{command.cluster_id}-{type(command).__name__}-{len(vectors)}",
                        "cluster": command.cluster_id, "name": type(command).__name__, "payload": payload,
                        "tlv": rebuilt.ToTLV().hex()})
    for response in RESPONSES:
        vectors.append({"id": f"response-{response.cluster_id}-{type(response).__name__}-{len(vectors)}",
                        "cluster": response.cluster_id, "response": type(response).__name__,
                        "tlv": response.ToTLV().hex(), "json": to_json(response)})
    out = {"family": "matter-server-device-command-payloads",
           "description": "device_command payloads as the client sends them with the command TLV the SDK sends, and responses as devices send them with the JSON the server answers.",
           "source": "matter_server 8.1.2 dataclass_to_dict/dataclass_from_dict and chip.clusters.Objects ToTLV "
                     "(home-assistant-chip-clusters 2025.7.0), via scripts/gen-device-command-vectors.py",
           "vectors": vectors}
    path = pathlib.Path(__file__).resolve().parent.parent / "testvectors/matter-server/device_command_payloads.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(COMMANDS)} commands, {len(RESPONSES)} responses")


main()
