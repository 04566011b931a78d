from django.urls import path

from tables import apis

urlpatterns = [
    path("tables/", apis.LobbyApi.as_view(), name="api-lobby"),
    path("tables/<int:table_id>/", apis.TableDetailApi.as_view(), name="api-table"),
    path("tables/<int:table_id>/join/", apis.TableJoinApi.as_view(), name="api-table-join"),
    path("tables/<int:table_id>/leave/", apis.TableLeaveApi.as_view(), name="api-table-leave"),
    path("practice/", apis.PracticeStartApi.as_view(), name="api-practice"),
    path("history/deals/", apis.DealHistoryApi.as_view(), name="api-deal-history"),
    path("history/deals/<int:deal_id>/", apis.DealDetailApi.as_view(), name="api-deal-detail"),
    path("history/games/<int:game_id>/", apis.GameHistoryApi.as_view(), name="api-game-detail"),
    path("groups/evaluate/", apis.GroupsEvaluateApi.as_view(), name="api-groups-evaluate"),
]
